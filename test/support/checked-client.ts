import { OpenApiResponseChecker } from './openapi-check';

/** Options of one request through a checked client. */
export interface CallOptions {
  token?: string;
  body?: unknown;
  /** Sent as is, without JSON encoding (for malformed bodies). */
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

/** A response, already checked against the published OpenAPI document. */
export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** Sends one request and checks its answer. */
export type Call = (method: string, path: string, options?: CallOptions) => Promise<CallResult>;

/**
 * An HTTP client for a connector at `baseUrl` whose every answer is validated against the document that
 * connector publishes at `/openapi.json` (fetched once here).
 */
export async function checkedClient(baseUrl: string): Promise<{ call: Call; checker: OpenApiResponseChecker }> {
  const published = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as Record<string, any>;
  const checker = new OpenApiResponseChecker(published);
  const call: Call = async (method, path, options = {}) => {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Buffer | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
    const text = await response.text();
    checker.check({ method, path, status: response.status, headers: response.headers, text });
    const type = response.headers.get('content-type') ?? '';
    // application/x-ndjson is many JSON values, not one: its text is the body to read.
    const json = /json/.test(type) && !/ndjson/.test(type);
    return { status: response.status, headers: response.headers, text, body: json && text ? JSON.parse(text) : undefined };
  };
  return { call, checker };
}
