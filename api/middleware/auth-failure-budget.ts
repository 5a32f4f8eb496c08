import type { NextFunction, Request, Response } from 'express';
import { RateLimitedError } from '../../shared/platform/errors/rate-limited-error';
import { UnauthorizedError, type AuthFailureReason } from '../../shared/platform/errors/unauthorized-error';
import type { Metrics } from '../../shared/platform/metrics/metrics';
import type { RateLimitStore, RateWindow } from '../../shared/domain/admission/rate-limit-store';
import { announceRateLimit, type RatePolicy } from '../http/rate-limit-headers';
import { state } from '../http/locals';

const WINDOW_SECONDS = 60;

/**
 * Failures that look like guessing: a wrong link secret, or a bearer token we never issued. An expired or
 * revoked token was issued by us, and many people behind one platform's address may still hold one, so
 * those (and a missing header, which MCP clients send to discover how to sign in) do not spend the budget.
 */
const GUESSES: ReadonlySet<AuthFailureReason> = new Set<AuthFailureReason>(['bad_link_secret', 'invalid']);

const failureKey = (req: Request): string => `authfail:${req.ip ?? 'unknown'}`;

/** The two halves of the budget: a gate before authentication, a counter (error middleware) after it. */
export interface AuthFailureBudget {
  /** Gates link-secret operations; bearer admission applies the budget itself, with {@link refuseIfSpent}. */
  gate: (req: Request, res: Response, next: NextFunction) => Promise<void>;
  /** The rate-limit key of the request address's failures, and how many a window allows. */
  key: (req: Request) => string;
  quota: number;
  /** Throws 429 (counted, with the policy's headers) when `window` has spent the budget. */
  refuseIfSpent: (res: Response, window: RateWindow | undefined) => void;
  record: (error: unknown, req: Request, res: Response, next: NextFunction) => Promise<void>;
}

/**
 * A per-address budget of failed authentications (policy `auth-failures`), shared by every replica through
 * the rate-limit store. `gate` (or, for bearer operations, the admission's first step) decides before any
 * store lookup of the credential, so an address that has spent its budget gets 429 whatever it sends, until
 * the window ends, without its credential being looked up (a bearer token's signature is checked first, in
 * memory, to know which connection to check in the same round trip; its result waits for the budget). `record` is an error middleware after authentication: it counts each guess and lets the 401 through.
 */
export function authFailureBudget(store: RateLimitStore, perMinute: number, metrics: Metrics): AuthFailureBudget {
  const policy: RatePolicy = { name: 'auth-failures', quota: perMinute, windowSeconds: WINDOW_SECONDS };

  const refuseIfSpent = (res: Response, window: RateWindow | undefined): void => {
    if (window && window.count >= perMinute) {
      metrics.authFailures.inc({ reason: 'too_many_failures' });
      announceRateLimit(res, policy, window);
      throw new RateLimitedError(window.resetInSeconds);
    }
  };

  const gate = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const operation = state(res).operation;
    if (!operation || operation.auth === 'bearer') return next();
    try {
      refuseIfSpent(res, await store.peek(failureKey(req)));
      next();
    } catch (error) {
      next(error);
    }
  };

  const record = async (error: unknown, req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (!(error instanceof UnauthorizedError) || !GUESSES.has(error.reason)) return next(error);
    try {
      announceRateLimit(res, policy, await store.hit(failureKey(req), WINDOW_SECONDS));
      next(error);
    } catch (storeError) {
      next(storeError);
    }
  };

  return { gate, key: failureKey, quota: perMinute, refuseIfSpent, record };
}
