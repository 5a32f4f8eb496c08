import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The host name the test's metadata server answers as; the connector under test maps it to loopback. */
export const CIMD_HOST = 'cimd.test';

/** An https server for Client ID Metadata Documents, with a self-signed certificate made for the test. */
export interface CimdServer {
  /** `https://cimd.test:<port>` */
  readonly origin: string;
  /** The certificate, for the fetcher's test-only trust. */
  readonly ca: string;
  /** What the server answers at `path`, as `application/json` unless another content type is given. */
  serve(path: string, body: string, contentType?: string): void;
  /** How many requests reached `path` so far (404s included). */
  hits(path: string): number;
  /** Holds every answer under `prefix` back until {@link release}; {@link waiting} counts the held ones. */
  hold(prefix: string): void;
  /** Requests held back now. */
  waiting(): number;
  /** Answers every held request and stops holding. */
  release(): void;
  close(): Promise<void>;
}

/** Starts the metadata server on a free loopback port (openssl makes the certificate). */
export async function startCimdServer(): Promise<CimdServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'connector-cimd-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        `/CN=${CIMD_HOST}`,
        '-addext',
        `subjectAltName=DNS:${CIMD_HOST}`,
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const key = readFileSync(path.join(dir, 'key.pem'), 'utf8');
    const cert = readFileSync(path.join(dir, 'cert.pem'), 'utf8');
    const documents = new Map<string, { body: string; contentType: string }>();
    const counts = new Map<string, number>();
    const held: Array<() => void> = [];
    let holding: string | undefined;
    const server = https.createServer({ key, cert }, (req, res) => {
      const at = req.url ?? '';
      counts.set(at, (counts.get(at) ?? 0) + 1);
      const answer = () => {
        const document = documents.get(at);
        if (document === undefined) return void res.writeHead(404).end();
        res.writeHead(200, { 'content-type': document.contentType }).end(document.body);
      };
      if (holding !== undefined && at.startsWith(holding)) held.push(answer);
      else answer();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      origin: `https://${CIMD_HOST}:${(server.address() as AddressInfo).port}`,
      ca: cert,
      serve: (at, body, contentType = 'application/json') => void documents.set(at, { body, contentType }),
      hits: (at) => counts.get(at) ?? 0,
      hold: (prefix) => {
        holding = prefix;
      },
      waiting: () => held.length,
      release: () => {
        holding = undefined;
        for (const answer of held.splice(0)) answer();
      },
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
