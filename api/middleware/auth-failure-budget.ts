import type { NextFunction, Request, Response } from 'express';
import { RateLimitedError } from '../../shared/errors/rate-limited-error';
import { UnauthorizedError, type AuthFailureReason } from '../../shared/errors/unauthorized-error';
import type { Metrics } from '../../shared/metrics/metrics';
import type { RateLimitStore } from '../../shared/stores/rate-limit-store';
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

/**
 * A per-address budget of failed authentications (policy `auth-failures`), shared by every replica through
 * the rate-limit store. `gate` goes before anything looks at the credential, so an address that has spent
 * its budget gets 429 without a signature check or a store lookup, whatever it sends, until the window
 * ends. `record` is an error middleware after authentication: it counts each guess and lets the 401 through.
 */
export function authFailureBudget(store: RateLimitStore, perMinute: number, metrics: Metrics) {
  const policy: RatePolicy = { name: 'auth-failures', quota: perMinute, windowSeconds: WINDOW_SECONDS };

  const gate = async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (!state(res).operation) return next();
    try {
      const window = await store.peek(failureKey(req));
      if (window && window.count >= perMinute) {
        metrics.authFailures.inc({ reason: 'too_many_failures' });
        announceRateLimit(res, policy, window);
        throw new RateLimitedError(window.resetInSeconds);
      }
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

  return { gate, record };
}
