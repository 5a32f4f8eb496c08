import type { Request, Response } from 'express';
import type { RateLimitStore } from '../../shared/domain/admission/rate-limit-store';
import { RateLimitedError, UnauthorizedError } from '../../shared/platform/errors/problems';
import { secretsMatcher } from '../../shared/platform/secrets/secret-equals';
import { announceRateLimit, type RatePolicy } from '../http/rate-limit-headers';
import type { ClientKey } from './client-key';
import type { FailureBudget } from './failure-budget';
import type { SchemeCheck } from './scheme-check';

/** The dashboard links many people from few addresses, so its per-address quota is larger. */
const LINK_MULTIPLIER = 10;

/** What admitting the dashboard's requests needs. */
export interface LinkSecretCheckOptions {
  linkSecret: string;
  /** `LINK_SECRET_PREVIOUS`: accepted too during a rotation. */
  previousLinkSecret?: string | undefined;
  /** Told of each request admitted only thanks to the previous secret. */
  onPrevious?: () => void;
  rateLimits: RateLimitStore;
  /** Who the address window counts (an IPv6 client by its network). */
  clientKey: ClientKey;
  failures: FailureBudget;
  perMinute: number;
}

/**
 * Admits the dashboard's caller of a link-secret operation: first the client address's one-minute window
 * (policy `address`, counted whatever the secret, so a flood is refused before anything else), then the
 * secret (and, during a rotation, the previous one), each compared in constant time. A wrong or missing secret is a failure of the address: one atomic hit
 * on its budget, 401 within it and 429 beyond. The right secret is admitted whatever that budget says.
 */
export function linkSecretCheck(options: LinkSecretCheckOptions): SchemeCheck {
  const { linkSecret, previousLinkSecret, onPrevious = () => {}, rateLimits, clientKey, failures, perMinute } = options;
  const policy: RatePolicy = { name: 'address', quota: perMinute * LINK_MULTIPLIER, windowSeconds: 60 };
  const matchLinkSecret = secretsMatcher(linkSecret, previousLinkSecret);

  return async (req: Request, res: Response): Promise<void> => {
    const window = await rateLimits.hit(`ip:${clientKey(req)}`, policy.windowSeconds);
    announceRateLimit(res, policy, window);
    if (window.count > policy.quota) throw new RateLimitedError(window.resetInSeconds);
    const match = matchLinkSecret(req.get('x-link-secret'));
    if (!match) throw await failures.refuse(req, res, new UnauthorizedError('bad_link_secret', 'link-secret'));
    if (match === 'previous') onPrevious();
  };
}
