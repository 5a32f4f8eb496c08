import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Request, Response } from 'express';
import type { FetchMcpHandler } from './mcp-http-handler';

/**
 * The request headers the MCP transports read: content negotiation, the 2025 stream resumption, and every
 * `Mcp-*` header (protocol version, method and name, session, parameter headers). The rest, the bearer
 * token first, stays out of the SDK: authentication is done and its outcome travels as `authInfo`, and each
 * header copied into a web `Headers` costs time on every call.
 */
function forwarded(name: string): boolean {
  return name.startsWith('mcp-') || name === 'content-type' || name === 'accept' || name === 'last-event-id';
}

/**
 * Serves a fetch-shaped MCP handler from Express. The body was already parsed by the JSON body parser and
 * is handed over as `parsedBody`, so the web request carries headers only. A JSON answer is written in one
 * piece with its length (the SDK's Node adapter streams every answer chunk by chunk, which costs one socket
 * write per chunk for what is one small document); an event stream is still passed on as it comes.
 */
export async function serveFetchHandler(handler: FetchMcpHandler, req: Request, res: Response, authInfo: AuthInfo): Promise<void> {
  // The origin is fixed: the Host header is the client's to choose, and the SDK needs only the path. No abort
  // signal: every answer here is short (the longest, a 2025 `tasks/result`, waits a bounded time).
  const request = new globalThis.Request(`http://localhost${req.originalUrl}`, { method: req.method, headers: forwardedHeaders(req) });
  const response = await handler.fetch(request, { authInfo, ...(req.body !== undefined ? { parsedBody: req.body } : {}) });
  res.status(response.status);
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
    res.end(await wholeBody(response.body));
    return;
  }
  await streamBody(response.body, res);
}

/** The request's headers the transports read, as a web `Headers`. */
function forwardedHeaders(req: Request): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (!forwarded(name)) continue;
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const item of value) headers.append(name, item);
  }
  return headers;
}

/** An event stream, passed on chunk by chunk as it comes, until it ends or the client goes. */
async function streamBody(body: ReadableStream<Uint8Array>, res: Response): Promise<void> {
  res.flushHeaders();
  for await (const chunk of body) {
    if (res.destroyed) break;
    res.write(chunk);
  }
  res.end();
}

/** A JSON answer's bytes: read straight off its stream, which holds them as one chunk. */
async function wholeBody(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
  return chunks.length === 1 ? Buffer.from(chunks[0].buffer, chunks[0].byteOffset, chunks[0].byteLength) : Buffer.concat(chunks);
}
