import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JsonRpcHandler, JsonRpcRequest } from './edr-provider';

/** The largest request body taken: a deployment's calldata is a few tens of kilobytes. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

async function readBody(request: http.IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of request) {
    body += chunk;
    if (body.length > MAX_BODY_BYTES) throw new Error('request body too large');
  }
  return body;
}

/** Answers a single request or a batch (viem's http transport sends either), one answer per request. */
async function answer(handler: JsonRpcHandler, body: string): Promise<unknown> {
  const parsed = JSON.parse(body) as JsonRpcRequest | JsonRpcRequest[];
  return Array.isArray(parsed) ? Promise.all(parsed.map(handler)) : handler(parsed);
}

/** A listening JSON-RPC endpoint and how to stop it. */
export interface JsonRpcServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * Serves `handler` as JSON-RPC over HTTP POST on the loopback (`port` 0: any free one), so that viem's `http()`
 * transport and any other client reach the chain. A body that is not JSON answers JSON-RPC's parse error.
 */
export function serveJsonRpc(handler: JsonRpcHandler, port = 0): Promise<JsonRpcServer> {
  const server = http.createServer((request, response) => {
    const send = (status: number, value: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    if (request.method !== 'POST') return send(405, { error: 'POST a JSON-RPC request' });
    readBody(request)
      .then((body) => answer(handler, body))
      .then((value) => send(200, value))
      .catch((error: Error) => send(400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: error.message } }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      resolve({
        url: `http://127.0.0.1:${bound}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}
