import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Which of the two upstreams answered. */
export type Replica = 'A' | 'B';

/**
 * A round-robin HTTP proxy written for the test: consecutive requests go to A, B, A, B... and it records
 * which replica answered which JSON-RPC method, so a test can show a conversation crossed replicas. A test
 * may steer given methods to a given replica (the client also sends requests of its own, such as a GET for
 * a stream, so plain alternation cannot promise where one particular call lands).
 */
export async function roundRobinProxy(targets: Record<Replica, string>) {
  const served: Array<{ replica: Replica; method: string }> = [];
  const steer = new Map<string, Replica>();
  let next = 0;
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let method = '';
    try {
      method = String(JSON.parse(body.toString('utf8')).method ?? '');
    } catch {
      // Not JSON-RPC: recorded with an empty method.
    }
    const replica: Replica = steer.get(method) ?? (next++ % 2 === 0 ? 'A' : 'B');
    served.push({ replica, method });
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length', 'keep-alive'].includes(name)) headers[name] = value;
    }
    const upstream = await fetch(`${targets[replica]}${req.url}`, {
      method: req.method,
      headers,
      body: body.length > 0 ? body : undefined,
    });
    const answer = Buffer.from(await upstream.arrayBuffer());
    const out: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection'].includes(name)) out[name] = value;
    });
    res.writeHead(upstream.status, out).end(answer);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    served,
    steer,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
