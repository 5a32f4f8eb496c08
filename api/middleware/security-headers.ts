import type { ServerResponse } from 'node:http';

/**
 * The security headers every answer carries: the set OWASP's REST Security Cheat Sheet asks of every API
 * response, less `Cache-Control` and `Content-Type`, which each route sets for its own answer. The content
 * policy keeps `default-src 'none'` beside `frame-ancestors 'none'`: a browser that renders an answer can
 * load and run nothing. Why these and no others, and what they cost: docs/decisions/json-api-security-headers.md.
 */
export const SECURITY_HEADERS: ReadonlyArray<readonly [name: string, value: string]> = [
  ['Content-Security-Policy', "default-src 'none';frame-ancestors 'none'"],
  ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'DENY'],
];

/**
 * Sets {@link SECURITY_HEADERS} on an answer: fixed values, so one loop rather than a middleware each. Every
 * answer outside `/v1/` gets them as its request arrives (`createApp`).
 */
export function setSecurityHeaders(res: ServerResponse): void {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
}

/**
 * The fixed headers of an operation's answer (`/v1/`): the security headers and `Cache-Control: no-store`. They
 * are set as the answer is written (by `dispatchOperation`, or the error middlewares), not when the request
 * arrives, so a request waiting for Redis does not hold them (docs/decisions/operation-headers-when-written.md).
 */
export function setOperationAnswerHeaders(res: ServerResponse): void {
  setSecurityHeaders(res);
  res.setHeader('Cache-Control', 'no-store');
}
