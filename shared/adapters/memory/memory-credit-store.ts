import { type Allocation, draw, dueCredits, type GivenBack, giveBack, isDue, type Lot } from '../../domain/credits/credit-lots';
import { assertCredits, fellBelow, grantKind, type HoldRecord, holdDecision, settlementSplit } from '../../domain/credits/credit-rules';
import {
  type AccountPage,
  type CaptureRequest,
  type CreditAccount,
  type CreditEntry,
  type CreditEntryKind,
  type CreditStore,
  type CreditTotals,
  type DueGrant,
  type ExpireResult,
  type GrantRequest,
  type GrantResult,
  type HoldRequest,
  type HoldResult,
  NO_TOTALS,
  type ReleaseRequest,
  type SettleResult,
  type VoidRequest,
  type VoidResult,
} from '../../domain/credits/credit-store';
import type { PageQuery, SeqItem } from '../../platform/pagination/page';
import { newId } from '../../platform/util/ids';
import { SubjectSequence } from './subject-sequence';

interface Account extends CreditAccount {
  /** The subject's grants by id, each with the fingerprint of its body. */
  grants: Map<string, { fingerprint: string; entry: CreditEntry }>;
  /** Each job's hold; a settled one until `expiresAt` (ms). */
  holds: Map<string, HoldRecord & { expiresAt?: number; allocation?: Allocation }>;
  /** Credits moved by each kind of entry, ever: what the summary adds up. */
  totals: Map<CreditEntryKind, number>;
  /** Holds of more than 0 credits still open. */
  openHolds: number;
  /** What is left of each positive grant, by grant id. */
  lots: Map<string, Lot>;
}

/**
 * Credit accounts in memory. Each method that moves credits has a synchronous form (`grantNow`, `holdNow`,
 * `captureNow`, `releaseNow`) with no await between its check and its writes, so it is one step in this
 * process, and another store's step (the ledger's claim, the queue's ending) can make it part of its own.
 */
export class MemoryCreditStore implements CreditStore {
  private readonly accounts = new Map<string, Account>();
  /** Every grant id, whatever its subject: one id is one grant. */
  private readonly grantIds = new Map<string, string>();
  private readonly entryLists = new SubjectSequence<CreditEntry>();
  /** Every void id, whatever its subject, with the digest of its body and its entry. */
  private readonly voids = new Map<string, { fingerprint: string; subject: string; entry: CreditEntry }>();
  private lotSeq = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async grant(request: GrantRequest): Promise<GrantResult> {
    return this.grantNow(request);
  }

  async grantFingerprint(grantId: string): Promise<string | undefined> {
    return this.grantIds.get(grantId);
  }

  /** Payments being settled, by payer and key: what they are and when the mark lapses (ms). */
  private readonly settlingMarks = new Map<string, { value: string; until: number }>();

  async markSettling(markId: string, value: string, ttlSeconds: number): Promise<void> {
    this.settlingMarks.set(markId, { value, until: this.now() + ttlSeconds * 1000 });
  }

  async settlingMark(markId: string): Promise<string | undefined> {
    const mark = this.settlingMarks.get(markId);
    if (mark && mark.until <= this.now()) this.settlingMarks.delete(markId);
    return mark && mark.until > this.now() ? mark.value : undefined;
  }

  async clearSettling(markId: string): Promise<void> {
    this.settlingMarks.delete(markId);
  }

  async hold(request: HoldRequest): Promise<HoldResult> {
    return this.holdNow(request);
  }

  async capture(request: CaptureRequest): Promise<SettleResult> {
    return this.captureNow(request);
  }

  async release(request: ReleaseRequest): Promise<SettleResult> {
    return this.releaseNow(request);
  }

  async account(subject: string): Promise<CreditAccount> {
    return this.accountNow(subject);
  }

  async entries(subject: string, query: PageQuery): Promise<Array<SeqItem<CreditEntry>>> {
    return this.entryLists.page(subject, query).map(({ seq, value }) => ({ seq, value: { ...value } }));
  }

  async subjects(limit: number, after?: string): Promise<AccountPage> {
    const subjects = [...this.accounts.keys()].filter((subject) => after === undefined || subject > after).sort();
    const page = subjects.slice(0, limit);
    return subjects.length > limit ? { subjects: page, next: page[page.length - 1] } : { subjects: page };
  }

  async totals(subject: string): Promise<CreditTotals> {
    const account = this.accounts.get(subject);
    if (!account) return { ...NO_TOTALS };
    const total = (kind: CreditEntryKind) => account.totals.get(kind) ?? 0;
    return {
      granted: total('grant'),
      adjusted: total('adjustment'),
      captured: total('capture'),
      released: total('release'),
      expired: total('expire'),
      voided: total('void'),
      balance: account.balance,
      held: account.held,
      holds: account.openHolds,
    };
  }

  /** The subject's balance and held credits, read at once. */
  accountNow(subject: string): CreditAccount {
    const account = this.accounts.get(subject);
    return account ? { balance: account.balance, held: account.held } : { balance: 0, held: 0 };
  }

  /** {@link CreditStore.grant} as one synchronous step. */
  grantNow(request: GrantRequest): GrantResult {
    const known = this.grantIds.get(request.grantId);
    if (known !== undefined && known !== request.fingerprint) return { outcome: 'conflict' };
    const account = this.open(request.subject);
    const granted = account.grants.get(request.grantId);
    if (granted) {
      if (granted.fingerprint !== request.fingerprint) return { outcome: 'conflict' };
      return { outcome: 'replayed', entry: { ...granted.entry }, account: this.accountNow(request.subject) };
    }
    const before = account.balance;
    account.balance += request.credits;
    this.lotOf(account, request);
    const entry = this.record(request.subject, {
      kind: grantKind(request.credits),
      credits: request.credits,
      at: request.at ?? new Date(this.now()).toISOString(),
      grant_id: request.grantId,
      ...(request.expiresAt ? { expires_at: request.expiresAt } : {}),
      ...(request.note ? { note: request.note } : {}),
    });
    account.grants.set(request.grantId, { fingerprint: request.fingerprint, entry });
    this.grantIds.set(request.grantId, request.fingerprint);
    const fellLow = fellBelow(before, account.balance, request.lowThreshold);
    return { outcome: 'created', entry: { ...entry }, account: this.accountNow(request.subject), fellLow };
  }

  /** {@link CreditStore.hold} as one synchronous step: what the memory ledger's claim calls inside its own. */
  holdNow(request: HoldRequest): HoldResult {
    assertCredits(request.credits, 'a hold');
    const account = this.open(request.subject);
    // Credits of grants past their expiry are still in the balance until the sweep expires them, but never spendable.
    const spendable = account.balance - dueCredits(account.lots.values(), this.now());
    const decision = holdDecision(this.liveHold(account, request.jobId), request, spendable);
    if (decision !== 'held') return { outcome: decision, account: this.accountNow(request.subject) };
    const before = account.balance;
    account.balance -= request.credits;
    account.held += request.credits;
    const allocation = draw(account.lots.values(), request.credits, this.now());
    account.holds.set(request.jobId, { state: 'held', credits: request.credits, kept: 0, at: request.at, allocation });
    if (request.credits > 0) account.openHolds += 1;
    const entry =
      request.credits > 0
        ? this.record(request.subject, { kind: 'hold', credits: request.credits, job_id: request.jobId, at: request.at })
        : undefined;
    const fellLow = fellBelow(before, account.balance, request.lowThreshold);
    return { outcome: 'held', ...(entry ? { entry } : {}), account: this.accountNow(request.subject), fellLow };
  }

  /** {@link CreditStore.capture} as one synchronous step. */
  captureNow(request: CaptureRequest): SettleResult {
    assertCredits(request.credits, 'a capture');
    return this.settle(request, request.credits);
  }

  /** {@link CreditStore.release} as one synchronous step. */
  releaseNow(request: ReleaseRequest): SettleResult {
    return this.settle(request, 0);
  }

  /**
   * Releases the hold of a job never enqueued (the orphan sweep), as one synchronous step: only an open hold of
   * this acceptance; the release entry says `orphaned`. Answers the credits released (0: nothing was open).
   */
  releaseOrphanNow(request: { subject: string; jobId: string; at: string; ttlSeconds: number }): number {
    const hold = this.accounts.get(request.subject)?.holds.get(request.jobId);
    if (hold?.state !== 'held' || hold.at !== request.at) return 0;
    const result = this.settle(request, 0, 'orphaned');
    return result.outcome === 'settled' ? result.released : 0;
  }

  async dueGrants(now: number, limit: number): Promise<DueGrant[]> {
    const due: Array<DueGrant & { expiresAt: number }> = [];
    for (const [subject, account] of this.accounts) {
      for (const lot of account.lots.values()) if (isDue(lot, now)) due.push({ subject, grantId: lot.grantId, expiresAt: lot.expiresAt! });
    }
    return due
      .sort((x, y) => x.expiresAt - y.expiresAt)
      .slice(0, limit)
      .map(({ subject, grantId }) => ({ subject, grantId }));
  }

  async expire(grant: DueGrant, lowThreshold?: number): Promise<ExpireResult> {
    return this.expireNow(grant, lowThreshold);
  }

  async voidGrant(request: VoidRequest): Promise<VoidResult> {
    return this.voidNow(request);
  }

  /** {@link CreditStore.expire} as one synchronous step. */
  expireNow({ subject, grantId }: DueGrant, lowThreshold?: number): ExpireResult {
    const account = this.accounts.get(subject);
    const lot = account?.lots.get(grantId);
    if (!account || !lot || !isDue(lot, this.now())) return { credits: 0, account: this.accountNow(subject) };
    const credits = lot.remaining;
    lot.remaining = 0;
    lot.state = 'expired';
    if (credits === 0) return { credits, account: this.accountNow(subject) };
    const before = account.balance;
    account.balance -= credits;
    const entry = this.record(subject, { kind: 'expire', credits, grant_id: grantId, at: new Date(this.now()).toISOString() });
    return { credits, account: this.accountNow(subject), entry, fellLow: fellBelow(before, account.balance, lowThreshold) };
  }

  /** {@link CreditStore.voidGrant} as one synchronous step. */
  voidNow(request: VoidRequest): VoidResult {
    const known = this.voids.get(request.voidId);
    if (known) {
      if (known.fingerprint !== request.fingerprint) return { outcome: 'conflict' };
      return { outcome: 'replayed', entry: { ...known.entry }, account: this.accountNow(known.subject) };
    }
    const account = this.accounts.get(request.subject);
    const lot = account?.lots.get(request.grantId);
    if (!account || !lot) return { outcome: 'unknown' };
    const credits = lot.state === 'open' ? lot.remaining : 0;
    if (lot.state === 'open') lot.state = 'voided';
    lot.remaining = 0;
    const before = account.balance;
    account.balance -= credits;
    const entry = this.record(request.subject, {
      kind: 'void',
      credits,
      grant_id: request.grantId,
      void_id: request.voidId,
      at: request.at ?? new Date(this.now()).toISOString(),
      ...(request.note ? { note: request.note } : {}),
    });
    this.voids.set(request.voidId, { fingerprint: request.fingerprint, subject: request.subject, entry });
    const fellLow = fellBelow(before, account.balance, request.lowThreshold);
    return { outcome: 'created', entry: { ...entry }, account: this.accountNow(request.subject), fellLow };
  }

  /** Forgets settled holds whose records have expired; called by the backend's sweeper. */
  prune(): void {
    const now = this.now();
    for (const account of this.accounts.values()) {
      for (const [jobId, hold] of account.holds) if (hold.expiresAt !== undefined && hold.expiresAt <= now) account.holds.delete(jobId);
    }
  }

  private settle(request: ReleaseRequest, keep: number, reason?: 'orphaned'): SettleResult {
    const account = this.accounts.get(request.subject);
    const hold = account && this.liveHold(account, request.jobId);
    if (!account || !hold) return { outcome: 'none', account: this.accountNow(request.subject) };
    if (hold.state === 'settled') {
      return { outcome: 'already', captured: hold.kept, released: hold.credits - hold.kept, account: this.accountNow(request.subject) };
    }
    const { captured, released } = settlementSplit(hold.credits, keep);
    const at = request.at ?? new Date(this.now()).toISOString();
    account.holds.set(request.jobId, { ...hold, state: 'settled', kept: captured, expiresAt: this.now() + request.ttlSeconds * 1000 });
    if (hold.credits > 0) account.openHolds -= 1;
    // One move per entry, each entry recorded just after its own move, so each carries the account right after it.
    if (captured > 0) {
      account.held -= captured;
      this.record(request.subject, { kind: 'capture', credits: captured, job_id: request.jobId, at });
    }
    if (released > 0) {
      account.held -= released;
      account.balance += released;
      this.record(request.subject, { kind: 'release', credits: released, job_id: request.jobId, at, ...(reason ? { reason } : {}) });
      this.finishGivenBack(request.subject, giveBack(account.lots, hold.allocation ?? [], released), at);
    }
    return { outcome: 'settled', captured, released, account: this.accountNow(request.subject) };
  }

  /** A positive grant opens its lot; an adjustment draws what it takes back from the lots, as a spend would. */
  private lotOf(account: Account, request: GrantRequest): void {
    if (request.credits < 0) {
      draw(account.lots.values(), -request.credits, this.now());
      return;
    }
    const expiresAt = request.expiresAt === undefined ? undefined : Date.parse(request.expiresAt);
    account.lots.set(request.grantId, {
      grantId: request.grantId,
      remaining: request.credits,
      ...(expiresAt === undefined ? {} : { expiresAt }),
      seq: ++this.lotSeq,
      state: 'open',
    });
  }

  /** Credits a release gave back to grants already expired or voided leave the balance at once, one entry each. */
  private finishGivenBack(subject: string, given: GivenBack, at: string): void {
    const account = this.open(subject);
    for (const [kind, parts] of [
      ['expire', given.expired],
      ['void', given.voided],
    ] as const) {
      for (const [grantId, credits] of parts) {
        account.balance -= credits;
        this.record(subject, { kind, credits, grant_id: grantId, at });
      }
    }
  }

  private liveHold(account: Account, jobId: string): (HoldRecord & { allocation?: Allocation }) | undefined {
    const hold = account.holds.get(jobId);
    return hold && (hold.expiresAt === undefined || hold.expiresAt > this.now()) ? hold : undefined;
  }

  /** Records an entry after its move: it carries the account just after it, and adds to the account's totals. */
  private record(subject: string, fields: Omit<CreditEntry, 'id' | 'balance_after' | 'held_after'>): CreditEntry {
    const account = this.open(subject);
    const entry: CreditEntry = { id: newId('cre'), ...fields, balance_after: account.balance, held_after: account.held };
    account.totals.set(entry.kind, (account.totals.get(entry.kind) ?? 0) + entry.credits);
    this.entryLists.add(subject, entry);
    return { ...entry };
  }

  private open(subject: string): Account {
    let account = this.accounts.get(subject);
    if (!account) {
      account = { balance: 0, held: 0, grants: new Map(), holds: new Map(), totals: new Map(), openHolds: 0, lots: new Map() };
      this.accounts.set(subject, account);
    }
    return account;
  }
}
