import type { PageQuery, SeqItem } from '../../platform/pagination/page';

/**
 * What moved a subject's credits: a grant or an adjustment (the dashboard's), a job's hold, capture or release,
 * the unspent rest of a grant leaving at its expiry (`expire`) or voided by the dashboard (`void`).
 */
export type CreditEntryKind = 'grant' | 'adjustment' | 'hold' | 'capture' | 'release' | 'expire' | 'void';

/**
 * One movement of a subject's credits, as `GET /v1/link/credits` lists it. `credits` is the amount moved: a
 * grant's is positive, an adjustment's negative (as the dashboard gave it), a hold's, capture's and release's
 * positive. So the entries add up to the account: `balance` = grants + adjustments − holds + releases, and
 * `held` = holds − captures − releases.
 */
export interface CreditEntry {
  /** `cre_…`, unique. */
  id: string;
  kind: CreditEntryKind;
  credits: number;
  /** When it moved (ISO 8601). */
  at: string;
  /** For a grant or an adjustment: the dashboard's id of it (a checkout session id, say). */
  grant_id?: string;
  /** For a hold, a capture or a release: the job whose price moved. */
  job_id?: string;
  /** For a grant: when its unspent rest expires (ISO 8601). */
  expires_at?: string;
  /** For a void: the dashboard's id of it. */
  void_id?: string;
  /** For a grant, an adjustment or a void: the dashboard's note, when it gave one. */
  note?: string;
  /** For a release: `orphaned` when the sweep gave back the hold of a job that was never enqueued. */
  reason?: 'orphaned';
  /** The account's `balance` just after this entry moved it. */
  balance_after: number;
  /** The account's `held` just after this entry moved it. */
  held_after: number;
}

/**
 * A subject's account. `balance` is what can be held now: grants plus adjustments minus captures minus what is
 * held; it may be negative after an adjustment. `held` is what open holds keep aside for jobs not yet final.
 */
export interface CreditAccount {
  balance: number;
  held: number;
}

/** A grant (positive credits) or an adjustment (negative credits), idempotent by `grantId`. */
export interface GrantRequest {
  subject: string;
  /** The dashboard's id of the grant; the same id always names the same grant, whatever the subject. */
  grantId: string;
  /** Non-zero; negative for an adjustment, which applies whatever the balance (it may go negative). */
  credits: number;
  note?: string;
  /** Digest of the grant's body (subject, credits, note; see `grantFingerprint`): a repeat must carry the same. */
  fingerprint: string;
  /** `CREDITS_LOW_THRESHOLD`: the step reports whether an adjustment made the balance fall below it. */
  lowThreshold?: number;
  /** When (ISO 8601); now when absent. */
  at?: string;
  /** A positive grant's expiry (ISO 8601): its unspent rest leaves the balance then, as an `expire` entry. */
  expiresAt?: string;
}

/** A grant whose expiry has come, as the expiry sweep finds it. */
export interface DueGrant {
  subject: string;
  grantId: string;
}

/** What the expiry of one grant moved: `credits` (0 when nothing was left, or it was expired already) and its entry. */
export interface ExpireResult {
  credits: number;
  account: CreditAccount;
  entry?: CreditEntry;
  /** The expiry took the balance from at least the threshold it was given to below it. */
  fellLow?: boolean;
}

/** The dashboard's void of the unspent rest of a grant, idempotent by `voidId` across every subject. */
export interface VoidRequest {
  subject: string;
  grantId: string;
  voidId: string;
  note?: string;
  /** Digest of the body (subject, grant id, note): the same `voidId` with another body is a conflict. */
  fingerprint: string;
  at?: string;
  /** `CREDITS_LOW_THRESHOLD`: the step reports whether the void made the balance fall below it. */
  lowThreshold?: number;
}

/**
 * `created`: this call voided what was left of the grant (`entry.credits`, maybe 0). `replayed`: an earlier
 * call with the same body did. `conflict`: the void id names another void. `unknown`: the subject has no
 * positive grant with that id. Nothing moves but on `created` (`fellLow`: the void took the balance from at least
 * the threshold to below it).
 */
export type VoidResult =
  | { outcome: 'created' | 'replayed'; entry: CreditEntry; account: CreditAccount; fellLow?: boolean }
  | { outcome: 'conflict' }
  | { outcome: 'unknown' };

/**
 * `created`: this call added the grant (`fellLow`: an adjustment took the balance from at least the threshold to
 * below it). `replayed`: an earlier call did, with the same body: nothing was added; `entry` is that grant and
 * `account` the account now. `conflict`: the id names a grant with another body: nothing was added.
 */
export type GrantResult =
  | { outcome: 'created'; entry: CreditEntry; account: CreditAccount; fellLow: boolean }
  | { outcome: 'replayed'; entry: CreditEntry; account: CreditAccount }
  | { outcome: 'conflict' };

/** A paid job's price moved from `balance` to `held` when it is accepted; once per job. */
export interface HoldRequest {
  subject: string;
  jobId: string;
  /** The price; 0 records the hold (so that its job settles once) without an entry. */
  credits: number;
  /**
   * The job's acceptance (its `created_at`): the hold entry's time, and what tells a new acceptance under the
   * same job id (a key reused after its idempotency record expired) from a repeat of this one.
   */
  at: string;
  /** `CREDITS_LOW_THRESHOLD`: the step reports whether the hold made the balance fall below it. */
  lowThreshold?: number;
}

/**
 * `held`: the price moved to `held` (`entry` is the hold entry, absent for a price of 0; `fellLow` as for a
 * grant). `exists`: this acceptance of the job holds already, open or settled: nothing moved. `insufficient`:
 * the balance is below the price: nothing moved, nothing recorded.
 */
export type HoldResult =
  | { outcome: 'held'; entry?: CreditEntry; account: CreditAccount; fellLow: boolean }
  | { outcome: 'exists'; account: CreditAccount }
  | { outcome: 'insufficient'; account: CreditAccount };

/** How a job's hold ends: `credits` of it are captured (kept, clamped to the hold), the rest released. */
export interface CaptureRequest {
  subject: string;
  jobId: string;
  /** Credits kept; the rest of the hold goes back to the balance in the same step. */
  credits: number;
  /** How long the settled hold's record is kept, so that a late repeat still finds it (twice the retention). */
  ttlSeconds: number;
  /** When (ISO 8601); now when absent. */
  at?: string;
}

/** A job's whole hold given back to the balance. */
export type ReleaseRequest = Omit<CaptureRequest, 'credits'>;

/**
 * `settled`: this call ended the hold, capturing `captured` and releasing `released` (their sum is the hold).
 * `already`: an earlier call ended it, with these figures: nothing moved. `none`: the job holds nothing.
 */
export type SettleResult =
  | { outcome: 'settled' | 'already'; captured: number; released: number; account: CreditAccount }
  | { outcome: 'none'; account: CreditAccount };

/**
 * Every account's figures added up (`GET /v1/link/credits/summary`): the credits each kind of entry moved, ever,
 * and the accounts now. `granted + adjusted − captured − expired − voided = balance + held` always; `holds`
 * is the number of open holds.
 */
export interface CreditTotals {
  granted: number;
  adjusted: number;
  captured: number;
  released: number;
  expired: number;
  voided: number;
  balance: number;
  held: number;
  holds: number;
}

/** The totals of one account, as a store keeps them beside its balance. */
export const NO_TOTALS: CreditTotals = {
  granted: 0,
  adjusted: 0,
  captured: 0,
  released: 0,
  expired: 0,
  voided: 0,
  balance: 0,
  held: 0,
  holds: 0,
};

/** A page of subjects with a credit account, in the one stable order the export and the summary walk. */
export interface AccountPage {
  subjects: string[];
  /** Where the next page starts; undefined on the last page. */
  next?: string;
}

/**
 * Credit accounts: per subject a balance, what is held for jobs, and the entries that moved them. Every method
 * that moves credits is one atomic step (one Lua script on Redis, one synchronous step in memory), and each
 * is safe to repeat: a grant by its id, a hold, capture or release once per job whatever the number of
 * callers, so a replayed ending never moves money twice.
 */
export interface CreditStore {
  grant(request: GrantRequest): Promise<GrantResult>;
  /** The fingerprint of the body a grant id was first used with, whatever its subject; undefined for an unused id. */
  grantFingerprint(grantId: string): Promise<string | undefined>;
  /**
   * Marks a payment as being settled (x402), by `markId` (its payer and idempotency key): `value` says what it
   * is, kept `ttlSeconds`, cleared once its settlement is answered. A mark left behind means the process died
   * (or lost the answer) while settling, which the next call with that key resolves.
   */
  markSettling(markId: string, value: string, ttlSeconds: number): Promise<void>;
  /** The value a payment was marked with while being settled, if the mark is still there. */
  settlingMark(markId: string): Promise<string | undefined>;
  clearSettling(markId: string): Promise<void>;
  hold(request: HoldRequest): Promise<HoldResult>;
  capture(request: CaptureRequest): Promise<SettleResult>;
  release(request: ReleaseRequest): Promise<SettleResult>;
  account(subject: string): Promise<CreditAccount>;
  /** The subject's entries, newest first, paged by sequence number. */
  entries(subject: string, query: PageQuery): Promise<Array<SeqItem<CreditEntry>>>;
  /** Subjects with an account, `limit` at a time from `after` (a page's `next`), oldest account first. */
  subjects(limit: number, after?: string): Promise<AccountPage>;
  /** The account's totals (see {@link CreditTotals}), read at once. */
  totals(subject: string): Promise<CreditTotals>;
  /** Up to `limit` grants whose expiry is at or before `now` (ms) and not yet swept, the earliest first. */
  dueGrants(now: number, limit: number): Promise<DueGrant[]>;
  /**
   * Expires the unspent rest of a grant past its expiry, once: one `expire` entry; 0 when nothing is due.
   * `lowThreshold` (`CREDITS_LOW_THRESHOLD`): the step reports whether it made the balance fall below it.
   */
  expire(grant: DueGrant, lowThreshold?: number): Promise<ExpireResult>;
  /** Voids the unspent rest of a grant (never what is held or spent), once per void id: one `void` entry. */
  voidGrant(request: VoidRequest): Promise<VoidResult>;
}
