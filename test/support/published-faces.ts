import type { ConnectorUnderTest } from './harness';
import { connectMcp, REVISIONS } from './mcp-client';

/** One captured answer: its status, the headers a client acts on, and its body as sent (or as parsed JSON). */
interface CapturedAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: unknown;
}

/** Headers that differ per request by design (ids, dates) or per run (rate-limit windows): left out of a face. */
const VARYING_HEADERS = new Set(['date', 'x-request-id', 'content-length', 'etag', 'ratelimit', 'ratelimit-policy', 'keep-alive']);

/** Body fields that name the request, not the answer: replaced by a marker so the rest can be compared. */
const VARYING_FIELDS = new Set(['request_id', 'instance']);

/**
 * Requests whose whole answer is fixed by the contract and the configuration: the published documents, the root
 * page, the discovery documents, and one request per error class the API answers before any state is read.
 */
const FIXED_REQUESTS: readonly { name: string; method: string; path: string; headers?: Record<string, string>; body?: string }[] = [
  { name: 'openapi', method: 'GET', path: '/openapi.json' },
  { name: 'llms', method: 'GET', path: '/llms.txt' },
  { name: 'root-html', method: 'GET', path: '/', headers: { accept: 'text/html' } },
  { name: 'root-json', method: 'GET', path: '/', headers: { accept: 'application/json' } },
  { name: 'protected-resource', method: 'GET', path: '/.well-known/oauth-protected-resource' },
  { name: 'authorization-server', method: 'GET', path: '/.well-known/oauth-authorization-server' },
  { name: 'unknown-route', method: 'GET', path: '/v1/nowhere' },
  { name: 'wrong-method', method: 'PUT', path: '/v1/me' },
  { name: 'no-token', method: 'GET', path: '/v1/me' },
  { name: 'foreign-token', method: 'GET', path: '/v1/jobs', headers: { authorization: 'Bearer not.a.token' } },
  { name: 'no-link-secret', method: 'POST', path: '/v1/link', headers: { 'content-type': 'application/json' }, body: '{"subject":"a"}' },
  { name: 'not-json', method: 'POST', path: '/v1/link', headers: { 'content-type': 'text/plain' }, body: 'x' },
];

/** Strips what varies per request from a parsed body, at any depth. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, field]) => [key, VARYING_FIELDS.has(key) ? '<varies>' : stable(field)]));
}

async function capture(baseUrl: string, request: (typeof FIXED_REQUESTS)[number]): Promise<CapturedAnswer> {
  const res = await fetch(`${baseUrl}${request.path}`, { method: request.method, headers: request.headers, body: request.body });
  const text = await res.text();
  const headers = Object.fromEntries([...res.headers].filter(([name]) => !VARYING_HEADERS.has(name)).sort());
  const json = (res.headers.get('content-type') ?? '').includes('json');
  return { status: res.status, headers, body: json ? stable(JSON.parse(text)) : text };
}

/**
 * Every face of the connector that no state or clock changes, as one JSON-ready object: the fixed HTTP answers and,
 * on each MCP revision, the tools and resources a host lists. Two builds that serve the same contract give equal
 * captures, byte for byte once serialised.
 */
export async function capturePublishedFaces(connector: ConnectorUnderTest): Promise<Record<string, unknown>> {
  const faces: Record<string, unknown> = {};
  for (const request of FIXED_REQUESTS) faces[request.name] = await capture(connector.baseUrl, request);
  const token = await connector.link('published-faces@example.com');
  for (const revision of REVISIONS) {
    const client = await connectMcp(`${connector.baseUrl}/mcp`, token, revision, { tasks: true, ui: true });
    try {
      faces[`mcp-tools-${revision}`] = await client.listTools();
      faces[`mcp-resources-${revision}`] = await client.listResources();
    } finally {
      await client.close();
    }
  }
  return faces;
}
