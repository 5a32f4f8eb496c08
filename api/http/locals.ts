import type { ServerResponse } from 'node:http';
import type { Response } from 'express';
import type { Operation } from '../../shared/contract/operations/operation';
import type { AdmissionAlong } from '../../shared/domain/admission/admission-store';
import type { Principal } from '../../shared/domain/connections/principal';
import type { UsageSnapshot } from '../../shared/domain/ledger/ledger-store';

/** Per-request state the middlewares hand on, kept in `res.locals` rather than on a widened Request. */
export interface RequestState {
  requestId: string;
  /** Route template for metrics and logs: an operation path, a fixed path, or `unmatched`. */
  route: string;
  operation?: Operation;
  params?: Record<string, string>;
  principal?: Principal;
  /** A paid operation called without a bearer token while `X402=on`: it is paid with x402 (api/x402/pay-with-x402.ts). */
  x402?: boolean;
  /** The subject's charges, when bearer admission read them for the operation (`readsUsage`). */
  usage?: UsageSnapshot;
  /** A paid job's bearer admission, put off until its claim (api/admission/put-off-admission.ts). */
  putOff?: PutOff;
  /**
   * Set for an operation's request (`/v1/`): the RateLimit fields announced for it are held here, not set on
   * the answer, and written with its head (api/http/rate-limit-headers.ts,
   * docs/decisions/operation-answer-head-in-one-call.md). Undefined elsewhere: announced onto the answer.
   */
  heldRateLimits?: HeldRateLimits;
}

/** An admission put off until a paid job's claim, which the claim's step makes, or else {@link PutOff.admitNow}. */
export interface PutOff extends AdmissionAlong {
  /** True until the claim's step or {@link PutOff.admitNow} made the admission. */
  readonly pending: boolean;
  /** Admits the request on its own unless its claim did; throws the refusal. */
  admitNow(): Promise<void>;
}

/** The `RateLimit-Policy` and `RateLimit` lists announced for an operation's request so far ('' for none). */
export interface HeldRateLimits {
  policy: string;
  state: string;
}

/** The typed view of `res.locals`. */
export function state(res: Response): RequestState {
  return res.locals as RequestState;
}

/**
 * The route template the request matched (`/v1/jobs/{id}`, `/oauth/token`), for its server span's
 * `http.route`; undefined when it matched none, so that no text of the caller's path is recorded.
 */
export function matchedRoute(res: ServerResponse): string | undefined {
  const route = (res as Partial<Response>).locals?.route as string | undefined;
  return route === 'unmatched' ? undefined : route;
}

/**
 * The principal bearer admission set for this request. Every bearer route runs behind admission, so a missing
 * one is a wiring mistake, answered as a 500 rather than handled as an anonymous caller.
 */
export function admittedPrincipal(res: Response): Principal {
  const { principal, route } = state(res);
  if (!principal) throw new Error(`${route}: a bearer route ran without an admitted principal`);
  return principal;
}
