import type { Response } from 'express';
import type { RateWindow } from '../../shared/domain/admission/rate-limit-store';

/** A quota policy as draft-ietf-httpapi-ratelimit-headers names it: `quota` units per `windowSeconds`. */
export interface RatePolicy {
  name: string;
  quota: number;
  windowSeconds: number;
}

/**
 * Announces a policy and its current state in the `RateLimit-Policy` and `RateLimit` structured-field lists
 * (`"name";q=..;w=..` and `"name";r=..;t=..`). Appends, so a response under two policies lists both.
 */
export function announceRateLimit(res: Response, policy: RatePolicy, window: RateWindow): void {
  const remaining = Math.max(0, policy.quota - window.count);
  append(res, 'RateLimit-Policy', `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`);
  append(res, 'RateLimit', `"${policy.name}";r=${remaining};t=${window.resetInSeconds}`);
}

function append(res: Response, name: string, member: string): void {
  const existing = res.getHeader(name);
  res.setHeader(name, existing ? `${String(existing)}, ${member}` : member);
}
