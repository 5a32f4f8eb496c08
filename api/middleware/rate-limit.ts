import type { NextFunction, Request, Response } from 'express';
import { RateLimitedError } from '../../shared/platform/errors/rate-limited-error';
import type { AuthScheme } from '../../shared/contract/operations/operation';
import type { RateLimitStore } from '../../shared/domain/admission/rate-limit-store';
import { announceRateLimit, type RatePolicy } from '../http/rate-limit-headers';
import { state } from '../http/locals';

const WINDOW_SECONDS = 60;
/** The dashboard links many people from few addresses, so its per-address budget is larger. */
const LINK_MULTIPLIER = 10;

/** The policy a scheme's callers are limited by: per address for the dashboard, per subject for the rest. */
export function ratePolicy(scheme: AuthScheme, perMinute: number): RatePolicy {
  return scheme === 'link-secret'
    ? { name: 'address', quota: perMinute * LINK_MULTIPLIER, windowSeconds: WINDOW_SECONDS }
    : { name: 'subject', quota: perMinute, windowSeconds: WINDOW_SECONDS };
}

/**
 * The dashboard's fixed one-minute windows per client address (policy `address`), checked before its secret.
 * Every answer past this point carries the `RateLimit-Policy` and `RateLimit` headers; the request over the
 * quota answers 429 with `Retry-After`. Bearer callers are limited per subject inside `bearerAdmission`.
 */
export function linkSecretRateLimit(store: RateLimitStore, perMinute: number) {
  const policy = ratePolicy('link-secret', perMinute);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (state(res).operation?.auth !== 'link-secret') return next();
    const key = `ip:${req.ip ?? 'unknown'}`;
    try {
      const window = await store.hit(key, WINDOW_SECONDS);
      announceRateLimit(res, policy, window);
      if (window.count > policy.quota) throw new RateLimitedError(window.resetInSeconds);
      next();
    } catch (error) {
      next(error);
    }
  };
}
