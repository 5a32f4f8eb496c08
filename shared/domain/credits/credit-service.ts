import type { BillingMode } from '../../platform/config/billing-settings';
import { BillingModeError, GrantConflictError, NotFoundError, ValidationError, VoidConflictError } from '../../platform/errors/problems';
import { decodeCursor, encodeCursor } from '../../platform/pagination/cursor';
import { normalizeSubject } from '../subjects/normalize-subject';
import { CreditLedgerReader, type CreditSummary, type ExportLine, periodOf } from './credit-ledger-reader';
import { grantFingerprint, voidFingerprint } from './credit-rules';
import type {
  CaptureRequest,
  CreditAccount,
  CreditEntry,
  CreditStore,
  HoldRequest,
  HoldResult,
  ReleaseRequest,
  SettleResult,
} from './credit-store';

/** A grant as the dashboard sends it (`POST /v1/link/credits`), already checked against the operation's schema. */
export interface GrantInput {
  subject: string;
  /** Non-zero; negative for an adjustment. */
  credits: number;
  grant_id: string;
  note?: string;
  /** A positive grant's expiry (RFC 3339, in the future). */
  expires_at?: string;
}

/** What `POST /v1/link/credits` answers: the account after the grant, and the grant. */
export interface GrantView extends CreditAccount {
  subject: string;
  grant: CreditEntry;
}

/** What `GET /v1/link/credits` answers: the account and one page of its entries, newest first. */
export interface CreditStatement extends CreditAccount {
  subject: string;
  entries: CreditEntry[];
  next_cursor: string | null;
}

/** The billing settings the accounts follow. */
export interface CreditSettings {
  mode: BillingMode;
  /** `CREDITS_LOW_THRESHOLD`; undefined: no `credits.low` events. */
  lowThreshold?: number;
  /** `TOP_UP_URL` (default `DASHBOARD_URL`): where a person short of credits buys more. */
  topUpUrl?: string;
  /** `HOLD_ORPHAN_SECONDS`: when the sweep may release a hold whose job was never enqueued. */
  holdOrphanSeconds?: number;
}

/**
 * Where the accounts' events are recorded (`creditEventsOn` in webhooks/credit-events.ts, on the backend's event
 * queue): each is recorded by the call whose step made it true, after that step, with the data it fixed.
 */
export interface CreditEvents {
  /** `credits.granted` for a new grant or adjustment, with the balance it left; `at` dates the event (now by default). */
  granted(subject: string, entry: CreditEntry, balance: number, at?: Date): Promise<void>;
  /** `credits.low` for the step whose entry took the balance below the threshold. */
  fellLow(subject: string, entryId: string, balance: number, threshold: number): Promise<void>;
  /** `credits.expired` or `credits.voided` for the `expire` or `void` entry made, with the balance it left. */
  removed(subject: string, entry: CreditEntry, balance: number): Promise<void>;
}

/** Where the service reports what it moved (metrics). */
export interface CreditHooks {
  /** A new grant of `credits` (> 0); adjustments are not grants and are not reported. */
  onGranted?(credits: number): void;
  /** The unspent rest of a grant expired (`credits` > 0). */
  onExpired?(credits: number): void;
  /** The unspent rest of a grant was voided (`credits`, maybe 0). */
  onVoided?(credits: number): void;
}

/** A void as the dashboard sends it (`POST /v1/link/credits/void`), already checked against the operation's schema. */
export interface VoidInput {
  subject: string;
  grant_id: string;
  void_id: string;
  note?: string;
}

/** What `POST /v1/link/credits/void` answers: the account after the void, and the void. */
export interface VoidView extends CreditAccount {
  subject: string;
  void: CreditEntry;
}

/** How many due grants one pass of the expiry sweep takes at a time. */
const EXPIRY_PAGE = 100;

/**
 * A replay of a grant made this recently records its `credits.granted` event again: the event queues hold an
 * event id for a day, so that is a no-op, unless the first recording was lost (the process died, or Redis
 * failed, between the grant and its event), which the dashboard's retry then repairs.
 */
const EVENT_REPAIR_MS = 3_600_000;

/**
 * Subjects' credit accounts: the dashboard's grants and statements, and the holds, captures and releases of
 * paid jobs, with their events. Grants are refused in `metered` billing, where a balance means nothing;
 * statements are shown in either mode.
 */
export class CreditService {
  private readonly reader: CreditLedgerReader;

  constructor(
    private readonly store: CreditStore,
    private readonly events: CreditEvents,
    private readonly settings: CreditSettings,
    private readonly hooks: CreditHooks = {},
  ) {
    this.reader = new CreditLedgerReader(store);
  }

  /** True in `prepaid` billing: paid jobs hold their price, `/v1/me` shows the account. */
  get prepaid(): boolean {
    return this.settings.mode === 'prepaid';
  }

  /** Where a person short of credits buys more. */
  get topUpUrl(): string {
    return this.settings.topUpUrl ?? '';
  }

  /** `HOLD_ORPHAN_SECONDS`, when set. */
  get orphanSeconds(): number | undefined {
    return this.settings.holdOrphanSeconds;
  }

  /** `CREDITS_LOW_THRESHOLD`, when set. */
  get lowThreshold(): number | undefined {
    return this.settings.lowThreshold;
  }

  /**
   * Adds a grant (or an adjustment) once per `grant_id`: `replayed` when the same grant was made before
   * (nothing added). Throws 400 for a subject that is not one or 0 credits, 409 in `metered` billing and 422
   * when the id names a grant with another body.
   */
  async grant(input: GrantInput): Promise<{ replayed: boolean; view: GrantView }> {
    const subject = normalizeSubject(input.subject);
    if (input.credits === 0) throw new ValidationError('A grant moves credits.', [{ path: '/body/credits', message: 'must not be 0' }]);
    const expiresAt = expiryOf(input);
    if (!this.prepaid) throw new BillingModeError();
    const note = input.note || undefined;
    const result = await this.store.grant({
      subject,
      grantId: input.grant_id,
      credits: input.credits,
      ...(note === undefined ? {} : { note }),
      ...(expiresAt === undefined ? {} : { expiresAt }),
      fingerprint: grantFingerprint(subject, input.credits, note, expiresAt),
      ...this.threshold(),
    });
    if (result.outcome === 'conflict') throw new GrantConflictError();
    const { entry, account } = result;
    if (result.outcome === 'created') {
      if (entry.credits > 0) this.hooks.onGranted?.(entry.credits);
      await this.events.granted(subject, entry, account.balance);
      if (result.fellLow) await this.recordLow(subject, entry.id, account.balance);
    } else if (Date.now() - Date.parse(entry.at) < EVENT_REPAIR_MS) {
      // Only a lost first recording is repaired, and then with the balance as it is now.
      await this.events.granted(subject, entry, account.balance, new Date(entry.at));
    }
    return { replayed: result.outcome === 'replayed', view: { subject, ...account, grant: entry } };
  }

  /**
   * Voids the unspent rest of a grant, once per `void_id`: `replayed` when the same void was made before.
   * Throws 409 in `metered` billing, 404 for a grant the subject does not have, 422 when the id names
   * another void.
   */
  async voidGrant(input: VoidInput): Promise<{ replayed: boolean; view: VoidView }> {
    const subject = normalizeSubject(input.subject);
    if (!this.prepaid) throw new BillingModeError();
    const note = input.note || undefined;
    const result = await this.store.voidGrant({
      subject,
      grantId: input.grant_id,
      voidId: input.void_id,
      ...(note === undefined ? {} : { note }),
      fingerprint: voidFingerprint(subject, input.grant_id, note),
      ...this.threshold(),
    });
    if (result.outcome === 'conflict') throw new VoidConflictError();
    if (result.outcome === 'unknown') throw new NotFoundError('The subject has no grant with this grant_id.');
    const { entry, account } = result;
    if (result.outcome === 'created') {
      this.hooks.onVoided?.(entry.credits);
      await this.events.removed(subject, entry, account.balance);
      if (result.fellLow) await this.recordLow(subject, entry.id, account.balance);
    } else if (Date.now() - Date.parse(entry.at) < EVENT_REPAIR_MS) {
      await this.events.removed(subject, entry, account.balance);
    }
    return { replayed: result.outcome === 'replayed', view: { subject, ...account, void: entry } };
  }

  /**
   * One pass of the expiry sweep: expires the unspent rest of every grant past its expiry, each once whatever
   * the number of replicas sweeping, with its `credits.expired` event. Answers the credits expired.
   */
  async expireDue(now: number = Date.now()): Promise<number> {
    let expired = 0;
    for (;;) {
      const due = await this.store.dueGrants(now, EXPIRY_PAGE);
      for (const grant of due) {
        const { credits, entry, account, fellLow } = await this.store.expire(grant, this.settings.lowThreshold);
        if (!entry) continue;
        expired += credits;
        this.hooks.onExpired?.(credits);
        await this.events.removed(grant.subject, entry, account.balance);
        if (fellLow) await this.recordLow(grant.subject, entry.id, account.balance);
      }
      if (due.length < EXPIRY_PAGE) return expired;
    }
  }

  /** The subject's account and one page of its entries in the period (`since`, `until`: RFC 3339), newest first. */
  async statement(
    rawSubject: string,
    query: { limit: number; cursor?: string; since?: unknown; until?: unknown },
  ): Promise<CreditStatement> {
    const subject = normalizeSubject(rawSubject, '/query/subject');
    const { limit, cursor } = query;
    const before = cursor === undefined ? undefined : decodeCursor(cursor);
    const period = periodOf(query.since, query.until);
    const [account, found] = await Promise.all([
      this.store.account(subject),
      this.reader.statementPage(subject, { limit: limit + 1, ...(before === undefined ? {} : { before }), period }),
    ]);
    const shown = found.slice(0, limit);
    return {
      subject,
      ...account,
      entries: shown.map((item) => item.value),
      next_cursor: found.length > limit ? encodeCursor(shown[shown.length - 1].seq) : null,
    };
  }

  /** Every account's totals added up, and whether `granted + adjusted − captured − expired − voided = balance + held`. */
  summary(): Promise<CreditSummary> {
    return this.reader.summary();
  }

  /** Every account's entries in the period (RFC 3339 `since`, `until`), in one stable order, resumable by cursor. */
  export(query: { since?: unknown; until?: unknown; cursor?: string }): AsyncGenerator<ExportLine> {
    return this.reader.export(periodOf(query.since, query.until), query.cursor);
  }

  /** The subject's balance and held credits. */
  account(subject: string): Promise<CreditAccount> {
    return this.store.account(subject);
  }

  /** A job's hold on its own (not inside the ledger's claim), with its `credits.low` event. */
  async hold(request: Omit<HoldRequest, 'lowThreshold'>): Promise<HoldResult> {
    const result = await this.store.hold({ ...request, ...this.threshold() });
    if (result.outcome === 'held' && result.fellLow && result.entry)
      await this.recordLow(request.subject, result.entry.id, result.account.balance);
    return result;
  }

  /** Ends a job's hold keeping `credits` of it; once per job. */
  capture(request: CaptureRequest): Promise<SettleResult> {
    return this.store.capture(request);
  }

  /** Ends a job's hold giving all of it back; once per job. */
  release(request: ReleaseRequest): Promise<SettleResult> {
    return this.store.release(request);
  }

  /**
   * Records `credits.low` for the step whose entry `entryId` took the subject's balance below the threshold
   * (a step reports it as `fellLow`): the ledger's claim, holding inside its own step, calls this after it.
   */
  async recordLow(subject: string, entryId: string, balance: number): Promise<void> {
    if (this.settings.lowThreshold === undefined) return;
    await this.events.fellLow(subject, entryId, balance, this.settings.lowThreshold);
  }

  private threshold(): { lowThreshold?: number } {
    return this.settings.lowThreshold === undefined ? {} : { lowThreshold: this.settings.lowThreshold };
  }
}

/**
 * A grant's expiry as ISO 8601 UTC: only a positive grant may carry one, and only in the future (400
 * otherwise); none without `expires_at`.
 */
export function expiryOf(input: Pick<GrantInput, 'credits' | 'expires_at'>, now: number = Date.now()): string | undefined {
  if (input.expires_at === undefined) return undefined;
  const path = '/body/expires_at';
  if (input.credits < 0) throw new ValidationError('An adjustment does not expire.', [{ path, message: 'only a positive grant expires' }]);
  const at = Date.parse(input.expires_at);
  if (Number.isNaN(at)) throw new ValidationError('Not a time.', [{ path, message: 'must be an RFC 3339 date-time' }]);
  if (at <= now) throw new ValidationError('The expiry has passed.', [{ path, message: 'must be in the future' }]);
  return new Date(at).toISOString();
}
