import http from 'node:http';

/** One request exactly as it goes on the wire: no URL normalisation, no header rewriting, no JSON encoding. */
export interface RawRequest {
  method: string;
  /** Path and query, sent verbatim (no `..` resolution, no re-encoding). */
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** What came back. */
export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
}

/**
 * A client for requests `fetch` would refuse or rewrite (unusual methods, `..` in paths, odd header values).
 * Requests share a keep-alive agent so that thousands of them cost few connections.
 */
export class RawClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 32 });

  constructor(private readonly baseUrl: string) {}

  send(request: RawRequest): Promise<RawResponse> {
    const { hostname, port } = new URL(this.baseUrl);
    // Node frames a GET's body only if told its length; unframed, it would be read as the next request.
    const headers = { ...request.headers };
    if (request.body !== undefined) headers['content-length'] ??= String(Buffer.byteLength(request.body));
    return new Promise((resolve, reject) => {
      const req = http.request({ host: hostname, port, method: request.method, path: request.path, headers, agent: this.agent }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
          }
          resolve({ status: res.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString('utf8') });
        });
      });
      req.on('error', reject);
      req.end(request.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
