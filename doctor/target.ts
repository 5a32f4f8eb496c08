/** Hosts for which plain http is acceptable (the same exact-match rule as PUBLIC_URL's validator). */
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** A URL without its trailing slash, so `https://x/` and `https://x` compare equal. */
export function normalizeUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/** Whether the URL's host is one of the local hosts for which http is tolerated. */
export function isLocalHost(url: URL): boolean {
  return LOCAL_HOSTS.has(url.hostname);
}

/** A response as the rules see it: status, headers and a bounded body. */
export interface Fetched {
  url: string;
  method: string;
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON when it is JSON, else undefined. */
  json: any;
}

/** What a request may carry. */
export interface DoctorRequest {
  method?: string;
  headers?: Record<string, string>;
  /** Sent as JSON with `content-type: application/json`. */
  json?: unknown;
  /** Sent as is (with the content type the caller sets). */
  body?: string;
}

/** Bodies beyond this are cut: the doctor reads descriptions and metadata, never bulk data. */
const MAX_BODY_CHARS = 2_000_000;

/**
 * The connector under examination: `baseUrl` is where the doctor sends requests, `publicUrl` what the
 * connector must call itself (they differ only inside a cluster, where the Service is plain http).
 * Every response is kept, so the header rules can look at all of them at the end.
 */
export class Target {
  readonly baseUrl: string;
  readonly publicUrl: string;
  readonly responses: Fetched[] = [];

  constructor(
    baseUrl: string,
    publicUrl: string,
    readonly timeoutMs: number,
  ) {
    this.baseUrl = normalizeUrl(baseUrl);
    this.publicUrl = normalizeUrl(publicUrl);
  }

  /** True when the doctor reaches the connector at another address than its public one (in a cluster). */
  get internal(): boolean {
    return this.baseUrl !== this.publicUrl;
  }

  /**
   * An absolute URL the connector published, rewritten to the address the doctor reaches: under PUBLIC_URL
   * it keeps its place under the base URL; elsewhere on PUBLIC_URL's origin (RFC 8414/9728 put well-known
   * documents at the origin's root) it moves to the base URL's origin. Other URLs are left alone.
   */
  reachable(publishedUrl: string): string {
    if (publishedUrl.startsWith(`${this.publicUrl}/`) || publishedUrl === this.publicUrl)
      return this.baseUrl + publishedUrl.slice(this.publicUrl.length);
    const published = new URL(this.publicUrl);
    const url = new URL(publishedUrl);
    if (url.origin !== published.origin) return publishedUrl;
    return new URL(this.baseUrl).origin + url.pathname + url.search;
  }

  /** Requests a path under the base URL. */
  request(path: string, init: DoctorRequest = {}): Promise<Fetched> {
    return this.requestUrl(this.baseUrl + path, init);
  }

  /** Requests an absolute URL; redirects are never followed (the OAuth rules look at them). */
  async requestUrl(url: string, init: DoctorRequest = {}): Promise<Fetched> {
    const method = init.method ?? (init.json !== undefined ? 'POST' : 'GET');
    const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.5', ...init.headers };
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(url, { method, headers, body, redirect: 'manual', signal: AbortSignal.timeout(this.timeoutMs) });
    const text = (await response.text()).slice(0, MAX_BODY_CHARS);
    let json: any;
    if (/json/i.test(response.headers.get('content-type') ?? '')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
    }
    const fetched: Fetched = { url, method, status: response.status, headers: response.headers, text, json };
    this.responses.push(fetched);
    return fetched;
  }
}

/** A failed request's reason, for a FAIL line: never the request itself (it may carry a secret). */
export function describeError(error: unknown): string {
  let text = String(error);
  if (error instanceof Error) {
    const cause = (error as Error & { cause?: unknown }).cause;
    const detail = cause instanceof Error ? `: ${cause.message}` : '';
    text = `${error.name === 'TimeoutError' ? 'timed out' : error.message}${detail}`;
  }
  // Library errors may quote a whole response body; one line of it is enough to act on.
  const line = text.replace(/\s+/g, ' ');
  return line.length > 240 ? `${line.slice(0, 240)}…` : line;
}
