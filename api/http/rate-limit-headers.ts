import type { Response } from 'express';
import type { RateWindow } from '../../shared/domain/admission/rate-limit-store';
import type { RequestState } from './locals';

/** A quota policy as draft-ietf-httpapi-ratelimit-headers names it: `quota` units per `windowSeconds`. */
export interface RatePolicy {
  name: string;
  quota: number;
  windowSeconds: number;
}

/**
 * Announces a policy and its current state in the `RateLimit-Policy` and `RateLimit` structured-field lists
 * (`"name";q=..;w=..` and `"name";r=..;t=..`). Appends, so a response under two policies lists both. For an
 * operation's request the members are held in its state and written with the answer's head
 * ({@link heldRateLimitHeaders}); elsewhere they are set on the answer at once.
 */
export function announceRateLimit(res: Response, policy: RatePolicy, window: RateWindow): void {
  const remaining = Math.max(0, policy.quota - window.count);
  const policyMember = `"${policy.name}";q=${policy.quota};w=${policy.windowSeconds}`;
  const stateMember = `"${policy.name}";r=${remaining};t=${window.resetInSeconds}`;
  const held = (res.locals as RequestState | undefined)?.heldRateLimits;
  if (held) {
    held.policy = held.policy ? `${held.policy}, ${policyMember}` : policyMember;
    held.state = held.state ? `${held.state}, ${stateMember}` : stateMember;
    return;
  }
  append(res, 'RateLimit-Policy', policyMember);
  append(res, 'RateLimit', stateMember);
}

/** Holds the RateLimit fields announced from now on for a request whose head is written in one call. */
export function holdRateLimitHeaders(res: Response): void {
  (res.locals as RequestState).heldRateLimits = { policy: '', state: '' };
}

/**
 * The RateLimit fields held for an operation's request, as name and value pairs of a flat list (empty when
 * none was announced), for a head written in one call.
 */
export function heldRateLimitHeaders(res: Response): string[] {
  const held = (res.locals as RequestState).heldRateLimits;
  return held?.policy ? ['RateLimit-Policy', held.policy, 'RateLimit', held.state] : [];
}

/** Sets the RateLimit fields held for an operation's request on its answer, for the ways of answering that set headers one by one. */
export function setHeldRateLimitHeaders(res: Response): void {
  const fields = heldRateLimitHeaders(res);
  for (let i = 0; i < fields.length; i += 2) res.setHeader(fields[i], fields[i + 1]);
}

function append(res: Response, name: string, member: string): void {
  const existing = res.getHeader(name);
  res.setHeader(name, existing ? `${String(existing)}, ${member}` : member);
}
