import { expect } from 'chai';
import type { Call, CallOptions, CallResult } from './checked-client';

/** A `POST /v1/link` as a dashboard sends it: the person linked, or a whole body (a malformed one). */
export type LinkRequest = {
  /** The link secret sent as `x-link-secret`; null sends no header. */
  readonly secret: string | null;
  /** The client's address, sent as `x-forwarded-for`. */
  readonly address?: string;
} & ({ readonly subject: string } | { readonly body: unknown });

/** The call options of a `POST /v1/link`: the one place a test builds them. */
export function linkOptions(request: LinkRequest): CallOptions {
  const { secret, address } = request;
  return {
    body: 'body' in request ? request.body : { subject: request.subject },
    headers: { ...(secret === null ? {} : { 'x-link-secret': secret }), ...(address === undefined ? {} : { 'x-forwarded-for': address }) },
  };
}

/** Sends a `POST /v1/link` through `call` and returns the answer, whatever its status. */
export function postLink(call: Call, request: LinkRequest): Promise<CallResult> {
  return call('POST', '/v1/link', linkOptions(request));
}

/** Links through `call`, expects 201, and returns the Bearer token. */
export async function linkedToken(call: Call, request: LinkRequest): Promise<string> {
  const res = await postLink(call, request);
  expect(res.status, res.text).to.equal(201);
  return res.body.token as string;
}
