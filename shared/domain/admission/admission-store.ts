import type { ConnectionClient } from '../connections/connection-store';
import type { UsageSnapshot } from '../ledger/ledger-store';
import type { RateWindow } from './rate-limit-store';

/**
 * What admitting one bearer request with a verified token checks: the connection, then the subject's window.
 * The address's failed-authentication budget is not among them: it counts refused credentials only, and a
 * token that reaches this step has a valid signature.
 */
export interface BearerAdmissionRequest {
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
  /** The connection is missing, revoked or another subject's: the subject's window was not hit. */
  | { outcome: 'revoked' }
  /** The connection is live; `window` is the subject's window after this request's hit. */
  | { outcome: 'admitted'; client?: ConnectionClient; window: RateWindow; usage?: UsageSnapshot };

/**
 * Admits a bearer request in one step: the revocation check, then (only for a live connection) the subject's
 * rate-limit hit. On Redis this is one script (one round trip instead of one per check); in memory it runs
 * the same checks in-process.
 */
export interface AdmissionStore {
  admitBearer(request: BearerAdmissionRequest): Promise<BearerAdmission>;
}

/**
 * A bearer admission made in a paid job's claim step instead of a round trip of its own (one Redis node only):
 * the checks of {@link BearerAdmissionRequest} with the subject's quota, so that the step claims nothing for a
 * request it refuses (docs/decisions/admission-in-the-claim.md).
 */
export interface ClaimAdmissionRequest extends Omit<BearerAdmissionRequest, 'usageDay'> {
  /** The subject's requests allowed in one window: a hit beyond it is answered and claims nothing. */
  quota: number;
}

/**
 * An admission the API put off until its paid job's claim: what the claim step checks first, and the API's own
 * answer to its outcome (a 401 or a 429 thrown, the RateLimit fields announced), told before the claim's.
 */
export interface AdmissionAlong {
  readonly request: ClaimAdmissionRequest;
  /** Takes the admission's outcome; throws the refusal of a request it does not admit. */
  settle(answer: BearerAdmission): Promise<void>;
}
