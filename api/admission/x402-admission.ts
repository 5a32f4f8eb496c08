import type { Request, Response } from 'express';
import type { Operation } from '../../shared/contract/operations/operation';
import type { RateLimitStore } from '../../shared/domain/admission/rate-limit-store';
import { RateLimitedError } from '../../shared/platform/errors/problems';
import { announceRateLimit, type RatePolicy } from '../http/rate-limit-headers';
import type { ClientKey } from './client-key';

/**
 * Whether a request may be paid with x402 instead of a bearer token: a paid operation (it runs a job at a
 * price) called with no `Authorization` header at all. A request that sends a token is a person's, and is
 * checked as one: a wrong token is never turned into a payment request.
 */
export function payableByX402(operation: Operation, req: Request): boolean {
  return operation.auth === 'bearer' && operation.job !== undefined && operation.price !== undefined && !req.get('authorization');
}

/**
 * The one-minute window of a client address (policy `address`) for callers that have no subject yet: the
 * agents paying with x402. Counted before the body is read, so a flood is refused before anything else.
 */
export function addressRateLimit(rateLimits: RateLimitStore, clientKey: ClientKey, perMinute: number) {
  const policy: RatePolicy = { name: 'address', quota: perMinute, windowSeconds: 60 };
  return async (req: Request, res: Response): Promise<void> => {
    const window = await rateLimits.hit(`x402:${clientKey(req)}`, policy.windowSeconds);
    announceRateLimit(res, policy, window);
    if (window.count > policy.quota) throw new RateLimitedError(window.resetInSeconds);
  };
}
