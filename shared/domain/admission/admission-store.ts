import type { ConnectionClient } from '../connections/connection-store';
import type { UsageSnapshot } from '../ledger/ledger-store';
import type { RateWindow } from './rate-limit-store';

/** What admitting one bearer request checks: the address's failure budget, the connection, the subject's window. */
export interface BearerAdmissionRequest {
  /** Rate-limit key of the caller address's failed-authentication window, and how many failures it allows. */
  failureKey: string;
  failureQuota: number;
  /** The verified token's connection id (`jti`) and subject (`sub`). */
  connectionId: string;
  subject: string;
  /** Rate-limit key of the subject's window, hit only when the connection is live. */
  rateKey: string;
  windowSeconds: number;
  /**
   * Set for an operation that shows the subject's charges (`GET /v1/me`): an admitted request then also
   * carries the subject's usage and its spend on this UTC day, read in the same step instead of a later one.
   */
  usageDay?: string;
}

/** The first check that decided, in the order they run. */
export type BearerAdmission =
  /** The address has spent its failure budget: nothing else was looked at or counted. */
  | { outcome: 'over-budget'; failures: RateWindow }
  /** The connection is missing, revoked or another subject's: the subject's window was not hit. */
  | { outcome: 'revoked' }
  /** The connection is live; `window` is the subject's window after this request's hit. */
  | { outcome: 'admitted'; client?: ConnectionClient; window: RateWindow; usage?: UsageSnapshot };

/**
 * Admits a bearer request in one step: the failure-budget peek, the revocation check and the subject's
 * rate-limit hit, in that order, each only when the one before let the request through. On Redis this is
 * one script (one round trip instead of three); in memory it runs the same checks in-process.
 */
export interface AdmissionStore {
  admitBearer(request: BearerAdmissionRequest): Promise<BearerAdmission>;
}
