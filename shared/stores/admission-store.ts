import type { ConnectionClient } from './connection-store';
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
}

/** The first check that decided, in the order they run. */
export type BearerAdmission =
  /** The address has spent its failure budget: nothing else was looked at or counted. */
  | { outcome: 'over-budget'; failures: RateWindow }
  /** The connection is missing, revoked or another subject's: the subject's window was not hit. */
  | { outcome: 'revoked' }
  /** The connection is live; `window` is the subject's window after this request's hit. */
  | { outcome: 'admitted'; client?: ConnectionClient; window: RateWindow };

/**
 * Admits a bearer request in one step: the failure-budget peek, the revocation check and the subject's
 * rate-limit hit, in that order, each only when the one before let the request through. On Redis this is
 * one script (one round trip instead of three); in memory it runs the same checks in-process.
 */
export interface AdmissionStore {
  admitBearer(request: BearerAdmissionRequest): Promise<BearerAdmission>;
}
