import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local OTLP/HTTP endpoint that reads and discards every export: what a traced build's exporter sends to. */
export interface OtlpSink {
  /** For `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly url: string;
  /** Exports received and their bytes so far. */
  counts(): { requests: number; bytes: number };
  close(): Promise<void>;
}

/**
 * Starts the sink on a free loopback port. It answers every request 200 with an empty body, as a collector
 * that accepted everything would, so the exporter's cost is the real one (encoding, the request) and the
 * collector's is nobody's.
 */
export async function startOtlpSink(): Promise<OtlpSink> {
  let requests = 0;
  let bytes = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      requests += 1;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    counts: () => ({ requests, bytes }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
