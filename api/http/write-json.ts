import type { Response } from 'express';

/**
 * Answers with a JSON body: the bytes and headers `res.json` would send for the connector's answers (no
 * ETag, no JSON settings, never HEAD, which no operation accepts), without its header lookups, charset
 * handling and freshness check (their cost: bench/README.md).
 */
export function writeJson(res: Response, body: unknown, contentType = 'application/json; charset=utf-8'): void {
  const json = JSON.stringify(body) ?? '';
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(json));
  res.end(json);
}
