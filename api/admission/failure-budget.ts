import type { Request, Response } from 'express';
import type { RateLimitStore } from '../../shared/domain/admission/rate-limit-store';
import type { AppError } from '../../shared/platform/errors/app-error';
import { type AuthFailureReason, RateLimitedError, type UnauthorizedError } from '../../shared/platform/errors/problems';
import type { Metrics } from '../../shared/platform/metrics/metrics';
import { announceRateLimit, type RatePolicy } from '../http/rate-limit-headers';
import type { ClientKey } from './client-key';

const WINDOW_SECONDS = 60;

/**
 * Refusals that look like guessing: a wrong link secret, or a bearer token we never issued. An expired or
 * revoked token was issued by us, and many people behind one platform's address may still hold one, so
 * those (and a missing header, which MCP clients send to discover how to sign in) are not counted.
 */
const GUESSES: ReadonlySet<AuthFailureReason> = new Set<AuthFailureReason>(['bad_link_secret', 'invalid']);

/** The per-client budget of failed authentications (policy `auth-failures`); a client is its {@link ClientKey}. */
export interface FailureBudget {
  /**
   * Counts one failed authentication of the request's address and answers the refusal it earns: nothing
   * more while the address is within its budget (the caller refuses as it would anyway), a 429 beyond it.
   * Either way the answer carries the policy's RateLimit headers.
   */
  spend(req: Request, res: Response): Promise<RateLimitedError | undefined>;
  /** What to answer a refused credential: the refusal itself, or 429 for a guess beyond the budget. */
  refuse(req: Request, res: Response, refusal: UnauthorizedError): Promise<AppError>;
}

/**
 * The failed-authentication budget, shared by every replica through the rate-limit store. It only ever
 * sees failures: a valid credential never reaches it, so one caller's junk cannot lock out the others
 * behind the same address. Counting and checking are one step: the store's hit is one atomic increment
 * that answers this failure's own count (one single-key script on Redis, Cluster included), so concurrent
 * failures each get a different count and exactly `perMinute` of them are within the budget.
 */
export function failureBudget(store: RateLimitStore, perMinute: number, metrics: Metrics, clientKey: ClientKey): FailureBudget {
  const policy: RatePolicy = { name: 'auth-failures', quota: perMinute, windowSeconds: WINDOW_SECONDS };

  const spend = async (req: Request, res: Response): Promise<RateLimitedError | undefined> => {
    const window = await store.hit(`authfail:${clientKey(req)}`, WINDOW_SECONDS);
    announceRateLimit(res, policy, window);
    if (window.count <= perMinute) return undefined;
    metrics.authFailures.inc({ reason: 'too_many_failures' });
    return new RateLimitedError(window.resetInSeconds);
  };

  const refuse = async (req: Request, res: Response, refusal: UnauthorizedError): Promise<AppError> => {
    const overBudget = GUESSES.has(refusal.reason) ? await spend(req, res) : undefined;
    if (overBudget) return overBudget;
    metrics.authFailures.inc({ reason: refusal.reason });
    return refusal;
  };

  return { spend, refuse };
}
