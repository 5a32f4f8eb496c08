import type { AuthInfo } from '@modelcontextprotocol/server';
import { expect } from 'chai';
import type { Request, Response } from 'express';
import type { FetchMcpHandler } from '../../../../api/mcp/mcp-http-handler';
import { serveFetchHandler } from '../../../../api/mcp/serve-fetch-handler';

const AUTH = { token: 't', clientId: 'c', scopes: [] } as AuthInfo;

/** Serves one request through a handler answering `answer`; returns what the handler saw and what was written. */
async function serve(answer: globalThis.Response, request: { headers: Record<string, string | string[]>; body?: unknown }) {
  const seen: { request?: globalThis.Request; options?: Record<string, unknown> } = {};
  const handler = {
    fetch: async (req: globalThis.Request, options: Record<string, unknown>) => {
      Object.assign(seen, { request: req, options });
      return answer;
    },
  } as unknown as FetchMcpHandler;
  const written = { status: 0, headers: {} as Record<string, string>, chunks: [] as string[], ended: false, flushed: false };
  const res = {
    destroyed: false,
    status: (code: number) => (written.status = code),
    setHeader: (name: string, value: string) => (written.headers[name] = value),
    flushHeaders: () => (written.flushed = true),
    write: (chunk: Uint8Array) => written.chunks.push(Buffer.from(chunk).toString()),
    end: (chunk?: Uint8Array) => {
      if (chunk) written.chunks.push(Buffer.from(chunk).toString());
      written.ended = true;
    },
  };
  const req = { originalUrl: '/mcp?x=1', method: 'POST', ...request } as unknown as Request;
  await serveFetchHandler(handler, req, res as unknown as Response, AUTH);
  return { seen, written };
}

describe('serveFetchHandler (a fetch-shaped MCP handler behind Express)', () => {
  it('only the headers the transports read are forwarded: never the bearer token', async () => {
    const headers = {
      authorization: 'Bearer secret',
      'content-type': 'application/json',
      accept: 'application/json',
      'mcp-protocol-version': '2025-11-25',
      cookie: 'c=1',
    };
    const { seen } = await serve(new Response(null, { status: 202 }), { headers });
    expect([...seen.request!.headers.keys()].sort()).to.deep.equal(['accept', 'content-type', 'mcp-protocol-version']);
    expect(seen.request!.url).to.equal('http://localhost/mcp?x=1');
  });

  it('the parsed body and the auth info are handed over; no parsedBody when there was no body', async () => {
    const withBody = await serve(new Response(null, { status: 202 }), { headers: {}, body: { jsonrpc: '2.0' } });
    expect(withBody.seen.options).to.deep.equal({ authInfo: AUTH, parsedBody: { jsonrpc: '2.0' } });
    const without = await serve(new Response(null, { status: 202 }), { headers: {} });
    expect(without.seen.options).to.deep.equal({ authInfo: AUTH });
  });

  it('a JSON answer: its status and headers, the body written whole in one end', async () => {
    const answer = new Response('{"result":1}', { status: 200, headers: { 'content-type': 'application/json' } });
    const { written } = await serve(answer, { headers: {} });
    expect(written).to.deep.include({ status: 200, chunks: ['{"result":1}'], ended: true, flushed: false });
    expect(written.headers['content-type']).to.equal('application/json');
  });

  it('no body (202): the status alone, ended', async () => {
    const { written } = await serve(new Response(null, { status: 202 }), { headers: {} });
    expect(written).to.deep.include({ status: 202, chunks: [], ended: true });
  });

  it('an event stream: headers flushed first, then each chunk as it comes, then ended', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: a\n\n'));
        controller.enqueue(new TextEncoder().encode('data: b\n\n'));
        controller.close();
      },
    });
    const { written } = await serve(new Response(stream, { headers: { 'content-type': 'text/event-stream' } }), { headers: {} });
    expect(written).to.deep.include({ flushed: true, chunks: ['data: a\n\n', 'data: b\n\n'], ended: true });
  });
});
