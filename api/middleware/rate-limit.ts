import type { NextFunction, Request, Response } from 'express';
import { RateLimitedError } from '../../shared/errors/rate-limited-error';
import type { AuthScheme } from '../../shared/operations/operation';
import type { RateLimitStore } from '../../shared/stores/rate-limit-store';
import { state } from '../http/locals';

const WINDOW_SECONDS = 60;
/** The dashboard links many people from few addresses, so its per-address budget is larger. */
const LINK_MULTIPLIER = 10;

/**
 * Fixed one-minute windows: per subject for the platform's calls, per client address for the dashboard's
 * (checked before its secret, which also slows down guessing it). Mount it once per scheme, at the point in
 * the chain where that scheme's key is known.
 */
export function rateLimit(store: RateLimitStore, perMinute: number, scheme: AuthScheme) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { principal, operation } = state(res);
    if (operation?.auth !== scheme) return next();
    const key = principal ? `sub:${principal.subject}` : `ip:${req.ip ?? 'unknown'}`;
    const limit = operation?.auth === 'link-secret' ? perMinute * LINK_MULTIPLIER : perMinute;
    try {
      const window = await store.hit(key, WINDOW_SECONDS);
      res.setHeader('RateLimit-Limit', String(limit));
      res.setHeader('RateLimit-Remaining', String(Math.max(0, limit - window.count)));
      res.setHeader('RateLimit-Reset', String(window.resetInSeconds));
      if (window.count > limit) throw new RateLimitedError(window.resetInSeconds);
      next();
    } catch (error) {
      next(error);
    }
  };
}
