import type { Request, Response } from 'express';
import type { Operation } from '../../shared/contract/operations/operation';
import type { AdmissionStore, BearerAdmission } from '../../shared/domain/admission/admission-store';
import type { Principal } from '../../shared/domain/connections/principal';
import type { TokenService } from '../../shared/domain/connections/token-service';
import { utcDay } from '../../shared/domain/ledger/ledger-store';
import { RateLimitedError, UnauthorizedError } from '../../shared/platform/errors/problems';
import { state } from '../http/locals';
import { announceRateLimit, type RatePolicy } from '../http/rate-limit-headers';
import type { FailureBudget } from './failure-budget';
import { type OperationRateCheck, type OperationWindow, refuseOverOperationRate } from './operation-rate';
import { PutOffAdmission } from './put-off-admission';
import type { SchemeCheck } from './scheme-check';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** What admitting bearer requests needs. */
export interface BearerCheckOptions {
  tokens: TokenService;
  admissions: AdmissionStore;
  failures: FailureBudget;
  perMinute: number;
  /** Counts the operation's own rate limit, for an operation that declares one. */
  operationRate: OperationRateCheck;
  /** Whether an operation's admission is put off until its job's claim (absent: never). */
  putOff?: (operation: Operation) => boolean;
}

/** A request being admitted: its operation and its token's verified claims. */
interface Admitting {
  req: Request;
  res: Response;
  operation: Operation;
  claims: Principal;
}

/** The bearer token of a request's `Authorization` header; throws 401 `missing` or `invalid`. */
function bearerToken(req: Request): string {
  const header = req.get('authorization');
  if (!header) throw new UnauthorizedError('missing', 'bearer');
  const match = BEARER.exec(header);
  if (!match) throw new UnauthorizedError('invalid', 'bearer');
  return match[1];
}

/** Announces the operation's own window, when it has one, and refuses the call beyond it. */
function ownRateLimit(res: Response, operation: Operation, own: OperationWindow | undefined): void {
  if (own) announceRateLimit(res, own.policy, own.window);
  refuseOverOperationRate(operation, own);
}

/**
 * Counts the operation's own window when it has one. Most operations have none: no call then, and nothing
 * for admission to wait on (an awaited `async` check answering undefined cost every request a promise and a
 * turn of the microtask queue).
 */
function countOwnRate(res: Response, operation: Operation, subject: string, operationRate: OperationRateCheck): Promise<void> | undefined {
  if (operation.limits?.perMinute === undefined) return undefined;
  return operationRate(operation, subject).then((own) => ownRateLimit(res, operation, own));
}

/**
 * Admits a bearer operation's caller. The token's header, signature and claims are checked in memory first:
 * a token we never issued is a failure of the address (one atomic hit on its budget: 401 within it, 429
 * beyond) and is never looked up; a missing or expired one is refused with no store call at all. A token
 * that verifies is admitted with one store call: its connection (revocation), then the subject's rate limit
 * (policy `subject`), and for an operation that shows charges the subject's usage. The address's budget does
 * not apply to it, spent or not. An operation with its own `limits.perMinute` then has its own window hit
 * (policy `op-<operationId>`, one more store call, only for such an operation and only within the subject's
 * limit); both policies are announced, and a 429 from the operation's names it. With `putOff` true for the
 * operation, that store call is put off until its job's claim, which makes it ({@link PutOffAdmission}).
 */
export function bearerCheck({ tokens, admissions, failures, perMinute, operationRate, putOff }: BearerCheckOptions): SchemeCheck {
  const policy: RatePolicy = { name: 'subject', quota: perMinute, windowSeconds: 60 };

  /** The API's answer to an admission's outcome: the principal and the window set, a refusal thrown. */
  const answer = async ({ req, res, operation, claims }: Admitting, admission: BearerAdmission): Promise<void> => {
    if (admission.outcome !== 'admitted') throw await failures.refuse(req, res, new UnauthorizedError('revoked', 'bearer'));
    const locals = state(res);
    locals.principal = admission.client ? { ...claims, client: admission.client } : claims;
    if (admission.usage) locals.usage = admission.usage;
    announceRateLimit(res, policy, admission.window);
    if (admission.window.count > policy.quota) throw new RateLimitedError(admission.window.resetInSeconds);
    return countOwnRate(res, operation, claims.subject, operationRate);
  };

  return async (req: Request, res: Response, operation: Operation): Promise<void> => {
    let claims: Principal;
    try {
      claims = tokens.claims(bearerToken(req));
    } catch (refused) {
      throw refused instanceof UnauthorizedError ? await failures.refuse(req, res, refused) : refused;
    }
    const request = {
      connectionId: claims.connectionId,
      subject: claims.subject,
      rateKey: `sub:${claims.subject}`,
      windowSeconds: policy.windowSeconds,
    };
    const admitting: Admitting = { req, res, operation, claims };
    if (putOff?.(operation)) {
      const locals = state(res);
      locals.principal = claims;
      locals.putOff = new PutOffAdmission(
        { ...request, quota: policy.quota },
        (admission) => answer(admitting, admission),
        () => admissions.admitBearer(request),
      );
      return;
    }
    const admission = await admissions.admitBearer(operation.readsUsage ? { ...request, usageDay: utcDay() } : request);
    return answer(admitting, admission);
  };
}
