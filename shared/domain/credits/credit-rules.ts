import { createHash } from 'node:crypto';
import { canonicalJson } from '../../platform/util/canonical-json';
import type { CreditEntryKind } from './credit-store';

/** The largest amount one grant or adjustment may move (either way): a billion credits. */
export const MAX_GRANT_CREDITS = 1_000_000_000;

/** A grant id: 1 to 255 printable ASCII characters (a checkout session id, an order number…). */
export const GRANT_ID_PATTERN = /^[\x20-\x7E]{1,255}$/;

/** The longest note a grant may carry. */
export const MAX_GRANT_NOTE = 200;

/**
 * Digest of a grant's body, subject included: the same `grant_id` sent again with this digest is the same
 * grant (a replay); with another digest, whoever sends it, it is a conflict. A missing note and an empty one
 * are the same body.
 */
export function grantFingerprint(subject: string, credits: number, note: string | undefined, expiresAt?: string): string {
  // Without an expiry the body reads as before expiries existed, so earlier grants replay unchanged.
  const body = { subject, credits, note: note || null, ...(expiresAt ? { expires_at: expiresAt } : {}) };
  return createHash('sha256').update(canonicalJson(body), 'utf8').digest('base64url').slice(0, 32);
}

/** Digest of a void's body, subject included: the same `void_id` with another digest is a conflict. */
export function voidFingerprint(subject: string, grantId: string, note: string | undefined): string {
  return createHash('sha256')
    .update(canonicalJson({ subject, grant_id: grantId, note: note || null }), 'utf8')
    .digest('base64url')
    .slice(0, 32);
}

/** A positive amount is a grant, a negative one an adjustment. */
export function grantKind(credits: number): Extract<CreditEntryKind, 'grant' | 'adjustment'> {
  return credits < 0 ? 'adjustment' : 'grant';
}

/**
 * Whether a balance that moved from `before` to `after` fell below `threshold`: it was at least the threshold
 * and is now below it. A step that moves the balance decides this itself, so concurrent spends report one
 * crossing, and a balance lifted above the threshold and spent below it again crosses again.
 */
export function fellBelow(before: number, after: number, threshold: number | undefined): boolean {
  return threshold !== undefined && before >= threshold && after < threshold;
}

/** A job's hold as the store keeps it: open (`held`) or ended (`settled`, with the credits it kept). */
export interface HoldRecord {
  state: 'held' | 'settled';
  /** The credits the hold took. */
  credits: number;
  /** Once settled: the credits captured (the rest was released). */
  kept: number;
  /** The job's acceptance the hold belongs to (its `created_at`). */
  at: string;
}

/**
 * What a hold does, given the job's record and the balance: `exists` when this acceptance of the job holds
 * already (or any acceptance of it holds still: one open hold per job), `insufficient` when the balance is
 * below a price above 0, `held` otherwise (a settled hold of an earlier acceptance is replaced; a price of 0 is
 * held whatever the balance, which may be negative after an adjustment).
 */
export function holdDecision(
  record: HoldRecord | undefined,
  request: { credits: number; at: string },
  balance: number,
): 'held' | 'exists' | 'insufficient' {
  if (record && (record.state === 'held' || record.at === request.at)) return 'exists';
  return request.credits > 0 && balance < request.credits ? 'insufficient' : 'held';
}

/** How an open hold of `held` credits splits when `keep` of them are captured: clamped to the hold, the rest released. */
export function settlementSplit(held: number, keep: number): { captured: number; released: number } {
  const captured = Math.min(held, Math.max(0, Math.floor(keep)));
  return { captured, released: held - captured };
}

/** Refuses (as a programming error) an amount a hold or a capture cannot take: anything but a whole number from 0. */
export function assertCredits(credits: number, what: string): void {
  if (!Number.isSafeInteger(credits) || credits < 0) throw new RangeError(`${what} must be a whole number of credits from 0`);
}
