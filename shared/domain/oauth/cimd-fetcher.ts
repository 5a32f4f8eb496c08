import https from 'node:https';
import { checkedLookup, isNonPublicHost } from '../../platform/net/address-policy';

/** A Client ID Metadata Document is a few hundred bytes; anything past this is refused. */
export const CIMD_MAX_BYTES = 5 * 1024;
const TIMEOUT_MS = 3000;
const MAX_REDIRECTS = 2;

/**
 * Test-only seams. Production passes nothing: DNS is the system's and only public addresses are dialled.
 * A test maps its own host names to loopback addresses (an explicit allow-list: nothing else is exempt)
 * and trusts the self-signed certificate it made.
 */
export interface CimdFetchOptions {
  /** Host name → address; these hosts, and only these, may resolve to a non-public address. */
  testHosts?: Record<string, string>;
  /** Extra trusted CA certificate (PEM). */
  testCa?: string;
}

/** Why a metadata document could not be fetched; the message is safe to show to the client. */
export class CimdFetchError extends Error {}

/**
 * Fetches a Client ID Metadata Document with SSRF limits: https only, every resolved address must be
 * public and the connection goes to the very address that was checked (the lookup is pinned, so a second
 * DNS answer cannot swap it), a JSON content type, at most {@link CIMD_MAX_BYTES}, a few seconds end to end,
 * and redirects only within the same origin.
 */
export async function fetchClientMetadata(url: string, options: CimdFetchOptions = {}): Promise<unknown> {
  let target = new URL(url);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (target.protocol !== 'https:') throw new CimdFetchError('the client_id must be an https URL');
    const answer = await getOnce(target, options);
    if (answer.kind === 'body') {
      try {
        return JSON.parse(answer.text);
      } catch {
        throw new CimdFetchError('the client metadata document is not JSON');
      }
    }
    const next = new URL(answer.location, target);
    if (next.origin !== target.origin) throw new CimdFetchError('the client metadata document redirects to another host');
    target = next;
  }
  throw new CimdFetchError('the client metadata document redirects too often');
}

type Answer = { kind: 'body'; text: string } | { kind: 'redirect'; location: string };

function getOnce(url: URL, options: CimdFetchOptions): Promise<Answer> {
  // An address literal is dialled without a lookup, so it is judged here.
  if (isNonPublicHost(url.hostname)) {
    return Promise.reject(new CimdFetchError('the client metadata host is not on the public internet'));
  }
  return new Promise((resolve, reject) => {
    // Exactly one outcome: a destroyed request can still emit a late 'end' with a partial body.
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outcome();
    };
    const abort = (message: string) => {
      settle(() => reject(new CimdFetchError(message)));
      request.destroy();
    };
    const request = https.get(url, {
      lookup: checkedLookup({ testHosts: options.testHosts, refuse: refusedHost }),
      ...(options.testCa ? { ca: options.testCa } : {}),
      headers: { accept: 'application/json' },
      timeout: TIMEOUT_MS,
      agent: false,
    });
    const deadline = setTimeout(() => abort('the client metadata document took too long'), TIMEOUT_MS);
    request.on('timeout', () => abort('the client metadata document took too long'));
    request.on('error', (error) => {
      settle(() =>
        reject(new CimdFetchError(error instanceof CimdFetchError ? error.message : 'the client metadata document could not be fetched')),
      );
    });
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      if (status >= 300 && status < 400 && response.headers.location) {
        const location = response.headers.location;
        settle(() => resolve({ kind: 'redirect', location }));
        request.destroy();
        return;
      }
      if (status !== 200) return abort('the client metadata document was not found');
      if (!isJsonContentType(response.headers['content-type']))
        return abort('the client metadata document is not JSON by its content type');
      if (Number(response.headers['content-length'] ?? 0) > CIMD_MAX_BYTES) return abort('the client metadata document is too large');
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > CIMD_MAX_BYTES) abort('the client metadata document is too large');
        else chunks.push(chunk);
      });
      response.on('end', () => settle(() => resolve({ kind: 'body', text: Buffer.concat(chunks).toString('utf8') })));
      response.on('error', () => abort('the client metadata document could not be fetched'));
    });
  });
}

/**
 * True for `application/json` and structured-syntax `application/<type>+json` (RFC 6839), parameters such as
 * a charset allowed. Anything else, a missing type included, is not a metadata document: an HTML error page
 * or a file that happens to parse as JSON is not the client speaking.
 */
export function isJsonContentType(header: string | undefined): boolean {
  const type = (header ?? '').split(';', 1)[0].trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9!#$&^_.-]+\+json$/.test(type);
}

function refusedHost(reason: 'unresolved' | 'not-public'): CimdFetchError {
  return new CimdFetchError(
    reason === 'unresolved' ? 'the client metadata host does not resolve' : 'the client metadata host is not on the public internet',
  );
}
