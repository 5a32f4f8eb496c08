import type { Response } from 'express';
import { SECURITY_HEADERS } from '../middleware/security-headers';
import { state } from './locals';
import { heldRateLimitHeaders } from './rate-limit-headers';

/** The head every operation's JSON answer starts with: the security headers and `Cache-Control: no-store`. */
const FIXED_HEAD: readonly string[] = [...SECURITY_HEADERS.flat(), 'Cache-Control', 'no-store'];

/** Every name the head is built with, in lower case: an operation's own header must not repeat one. */
const HEAD_NAMES = new Set(
  [...FIXED_HEAD.filter((_, i) => i % 2 === 0), 'X-Request-Id', 'RateLimit-Policy', 'RateLimit', 'Content-Type', 'Content-Length'].map(
    (name) => name.toLowerCase(),
  ),
);

/**
 * True when an operation's own headers can join the head {@link writeOperationJson} builds: none of them
 * names a header the head already has (an operation's own `Cache-Control` replaces `no-store`, which only
 * setting the headers one by one does).
 */
export function joinsOperationHead(headers: Readonly<Record<string, string>> | undefined): boolean {
  if (!headers) return true;
  for (const name in headers) if (HEAD_NAMES.has(name.toLowerCase())) return false;
  return true;
}

/**
 * Writes an operation's JSON answer with its whole head in one `writeHead` call: the fixed headers, the
 * request id, the RateLimit fields admission held, the operation's own headers, and the body's type and
 * length. Node takes a flat list given to `writeHead` as it is, without the per-header bookkeeping of
 * `setHeader` (docs/decisions/operation-answer-head-in-one-call.md). A header set before (the drain's
 * `Connection: close`) is kept: Node merges the list into it.
 */
export function writeOperationJson(res: Response, status: number, body: unknown, headers?: Readonly<Record<string, string>>): void {
  writeInOneHead(res, status, body, { headers, contentType: 'application/json; charset=utf-8' });
}

/**
 * Writes a directly served MCP call's 200 answer as {@link writeOperationJson} writes an operation's, with the
 * content type the SDK's own answer has (docs/decisions/mcp-head-and-submit-path.md).
 */
export function writeMcpJson(res: Response, body: unknown): void {
  writeInOneHead(res, 200, body, { contentType: 'application/json' });
}

function writeInOneHead(
  res: Response,
  status: number,
  body: unknown,
  { headers, contentType }: { headers?: Readonly<Record<string, string>>; contentType: string },
): void {
  const json = JSON.stringify(body) ?? '';
  const head = [...FIXED_HEAD, 'X-Request-Id', state(res).requestId, ...heldRateLimitHeaders(res)];
  if (headers) for (const name in headers) head.push(name, headers[name]);
  head.push('Content-Type', contentType, 'Content-Length', String(Buffer.byteLength(json)));
  res.writeHead(status, head);
  res.end(json);
}
