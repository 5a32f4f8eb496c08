import http from 'node:http';
import fc from 'fast-check';
import type { OpenApiDocument } from '../../shared/contract/description/openapi-document';
import type { RawRequest } from './raw-client';
import { schemaArbitrary } from './schema-arbitrary';

/** Credentials and ids the fuzzer mixes in; the test makes them against the connector under test. */
export interface FuzzCredentials {
  /** A live token. */
  token: string;
  /** Tokens that must be refused: revoked, expired, forged, malformed. */
  badTokens: readonly string[];
  linkSecret: string;
  /** Ids of resources the live token's subject owns, so that reads by id can succeed. */
  knownIds: readonly string[];
}

/** One request to send, and what is known of it before it is sent. */
export interface FuzzRequest extends RawRequest {
  /** Set when Node must refuse it before the app sees it (unknown method, an Expect it cannot meet, oversized headers). */
  parserRejects?: 400 | 417 | 431;
}

/** Node refuses the whole header block above this; the fuzzer stays well below or well above it. */
const HEADER_LIMIT = http.maxHeaderSize;
const SMALL_HEADER = 4 * 1024;
const HUGE_HEADER = HEADER_LIMIT + 4 * 1024;

/** Roughly what Node counts against its header limit: the request line and every header line. */
function headerBytes(request: FuzzRequest): number {
  const lines = Object.entries(request.headers).reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
  return request.method.length + request.path.length + 12 + lines;
}

const FIXED_PATHS = ['/openapi.json', '/llms.txt', '/healthz', '/readyz'];
const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  '__proto__[admin]',
  'constructor[prototype][admin]',
  'toString',
  'hasOwnProperty',
  'limit[]',
  'cursor[$ne]',
];
const CONTENT_TYPES = [
  'application/json',
  'application/JSON',
  'application/json; charset=utf-8',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/json;;;',
  'application/problem+json',
  'application/vnd.api+json',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '*/*',
  '',
];

/** Header values Node's client can send: visible ASCII, space, tab and Latin-1. */
const headerValue = (maxLength: number) =>
  fc.string({
    maxLength,
    unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xa0, max: 0xff })).map((c) => String.fromCharCode(c)),
  });

const headerName = fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,40}$/);

/** One valid-shaped request per documented operation: path, query, headers and body from its schemas. */
function operationArbitraries(document: OpenApiDocument, credentials: FuzzCredentials): fc.Arbitrary<FuzzRequest>[] {
  const result: fc.Arbitrary<FuzzRequest>[] = [];
  for (const [template, methods] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, operation] of Object.entries<any>(methods)) {
      const parameters: any[] = operation.parameters ?? [];
      const pathParams: Record<string, fc.Arbitrary<string>> = {};
      const queryParams: Record<string, fc.Arbitrary<unknown>> = {};
      const headerParams: Record<string, fc.Arbitrary<unknown>> = {};
      // A valid-shaped request carries every required query parameter; the hostile changes take them away.
      const requiredQuery = parameters
        .filter((parameter) => parameter.in === 'query' && parameter.required)
        .map((parameter) => parameter.name);
      for (const parameter of parameters) {
        const value = schemaArbitrary(parameter.schema, document);
        if (parameter.in === 'path') pathParams[parameter.name] = fc.oneof(value.map(String), fc.constantFrom(...credentials.knownIds));
        if (parameter.in === 'query') queryParams[parameter.name] = value;
        if (parameter.in === 'header') headerParams[parameter.name] = value;
      }
      const bodySchema = operation.requestBody?.content?.['application/json']?.schema;
      const bearer = JSON.stringify(operation.security ?? []).includes('bearerAuth');
      result.push(
        fc
          .record({
            path: fc.record(pathParams),
            query: fc.record(queryParams, { requiredKeys: requiredQuery }),
            headers: fc.record(headerParams, { requiredKeys: [] }),
            body: bodySchema ? schemaArbitrary(bodySchema, document) : fc.constant(undefined),
          })
          .map(({ path, query, headers, body }) => {
            const filled = template.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(path[name]));
            const search = new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)])).toString();
            const sent: Record<string, string> = {};
            for (const [name, value] of Object.entries(headers)) sent[name.toLowerCase()] = String(value);
            if (bearer) sent.authorization = `Bearer ${credentials.token}`;
            else sent['x-link-secret'] = credentials.linkSecret;
            let raw: string | undefined;
            if (body !== undefined) {
              raw = JSON.stringify(body);
              sent['content-type'] = 'application/json';
            }
            return { method: method.toUpperCase(), path: search ? `${filled}?${search}` : filled, headers: sent, body: raw };
          }),
      );
    }
  }
  return result;
}

/** Deeply nested JSON of a given depth: arrays or objects. */
const deepJson = fc
  .tuple(fc.integer({ min: 100, max: 20_000 }), fc.boolean())
  .map(([depth, arrays]) => (arrays ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`));

/** Bodies that are wrong in shape, type, size or syntax. */
function hostileBody(valid: string | undefined): fc.Arbitrary<string | Buffer> {
  const base = valid ?? '{}';
  return fc.oneof(
    fc.jsonValue().map((v) => JSON.stringify(v) ?? 'null'),
    fc.integer({ min: 1, max: Math.max(1, base.length - 1) }).map((cut) => base.slice(0, cut)),
    fc.constantFrom(
      '',
      'null',
      'true',
      '0',
      '""',
      '[]',
      'NaN',
      '{"a":1,}',
      "{'a':1}",
      '\uFEFF{}',
      '{"__proto__":{"admin":true}}',
      '{"constructor":{"prototype":{"admin":true}}}',
    ),
    fc.constantFrom(...HOSTILE_KEYS).map((key) => base.replace(/^\{/, `{${JSON.stringify(key)}:{"admin":true},`)),
    // Numbers, booleans, arrays and nulls where the document wants strings.
    fc.constantFrom('1', 'true', 'null', '[]', '{}', '1e400', '-0').map((value) => base.replace(/"(?:[^"\\]|\\.)*"(?=\s*[,}\]])/g, value)),
    fc.constantFrom(60_000, 70_000).map((n) => base.replace(/"(?:[^"\\]|\\.)*"(?=\s*[,}\]])/, JSON.stringify('x'.repeat(n)))),
    deepJson,
    fc.uint8Array({ minLength: 1, maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  );
}

/** Paths next to the documented ones: traversal, encoding tricks, unknown and odd segments. */
function hostilePath(path: string): fc.Arbitrary<string> {
  const [pathname, search] = path.split('?');
  const withSearch = (p: string) => (search ? `${p}?${search}` : p);
  return fc.oneof(
    fc
      .constantFrom(
        `${pathname}/`,
        `${pathname}/..`,
        `${pathname}/../..`,
        `/v1/../${pathname}`,
        `/${pathname}`,
        `${pathname}%2F`,
        pathname.toUpperCase(),
        `${pathname}%00`,
        `${pathname};x=1`,
        `${pathname}.json`,
      )
      .map(withSearch),
    fc.constantFrom(
      '/',
      '*',
      '/v1',
      '/v1/',
      '/v2/me',
      '/..%2f..%2fetc/passwd',
      '/%2e%2e/%2e%2e/etc/passwd',
      '/v1/jobs/%ZZ',
      '/v1/jobs/%',
      '/v1/jobs/..',
      '/v1/jobs/%2e%2e',
      '/v1/things/x/y',
      '/\\v1\\me',
      '/v1//me',
      '/metrics',
      '/v1/link/revoke/x',
    ),
    fc.string({ unit: 'binary', maxLength: 30 }).map((s) => `${pathname.replace(/\/[^/]*$/, '')}/${encodeURIComponent(s)}`),
    fc.integer({ min: 1_000, max: 8_000 }).map((n) => `${pathname}/${'a'.repeat(n)}`),
  );
}

/** Extra query parameters: unknown, duplicated, prototype keys, wrong types, long values. */
const hostileQuery = fc
  .array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...HOSTILE_KEYS, 'limit', 'cursor'), fc.string({ maxLength: 12 })),
      fc.oneof(
        fc.constantFrom('', '-1', '0', '101', '1.5', 'abc', '1e2', '0x10', 'null', '[]', '%00', '..%2F'),
        fc.string({ unit: 'binary', maxLength: 40 }),
      ),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((pairs) => new URLSearchParams(pairs).toString());

/** Header changes: credentials, content types, encodings, request ids, idempotency keys, size. */
function hostileHeaders(credentials: FuzzCredentials): fc.Arbitrary<(headers: Record<string, string>) => void> {
  const set = (name: string, value: fc.Arbitrary<string>) =>
    value.map((v) => (headers: Record<string, string>) => {
      headers[name] = v;
    });
  const authValues = fc.oneof(
    fc.constantFrom(...credentials.badTokens).map((t) => `Bearer ${t}`),
    fc.constantFrom(
      'Bearer',
      'Bearer ',
      'Basic dXNlcjpwYXNz',
      `bearer ${credentials.token}`,
      `Bearer  ${credentials.token}  `,
      `Bearer ${credentials.token}.x`,
      `Token ${credentials.token}`,
      `Bearer ${credentials.token},Bearer ${credentials.token}`,
    ),
    headerValue(200),
  );
  return fc.oneof(
    fc.constant((headers: Record<string, string>) => void delete headers.authorization),
    fc.constant((headers: Record<string, string>) => void delete headers['x-link-secret']),
    set('authorization', authValues),
    set(
      'x-link-secret',
      fc.oneof(headerValue(100), fc.constant(`${credentials.linkSecret} `), fc.constant(credentials.linkSecret.toUpperCase())),
    ),
    set('content-type', fc.oneof(fc.constantFrom(...CONTENT_TYPES), headerValue(60))),
    set('content-encoding', fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip')),
    set('x-request-id', fc.oneof(headerValue(200), fc.constant('a'.repeat(129)), fc.constant('<script>'))),
    set('expect', fc.constantFrom('100-continue', '100-Continue', 'the-impossible', '')),
    set('idempotency-key', fc.oneof(fc.constantFrom('', ' ', 'x'.repeat(256), 'é', '\t'), headerValue(300))),
    fc.tuple(headerName, headerValue(100)).map(([name, value]) => (headers: Record<string, string>) => {
      headers[name.toLowerCase()] ??= value;
    }),
    fc.integer({ min: 1, max: SMALL_HEADER }).map((n) => (headers: Record<string, string>) => {
      headers['x-padding'] = 'p'.repeat(n);
    }),
    fc.integer({ min: HUGE_HEADER, max: 64 * 1024 }).map((n) => (headers: Record<string, string>) => {
      headers['x-huge'] = 'h'.repeat(n);
    }),
  );
}

const ODD_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'PURGE', 'SEARCH', 'LINK'];
/** Methods Node's parser does not know: it answers 400 before the app runs. */
const UNKNOWN_METHODS = ['FOO', 'GETS', 'BREW', 'X-EVIL'];

type Change = (request: FuzzRequest) => void;

/**
 * Applies one or two hostile changes to a valid-shaped request. Headers, query and body are favoured: a
 * broken method or path stops a request at the router, the others reach authentication and validation.
 */
function mutate(request: FuzzRequest, credentials: FuzzCredentials): fc.Arbitrary<FuzzRequest> {
  const change = fc.oneof(
    {
      weight: 1,
      arbitrary: fc
        .oneof({ weight: 4, arbitrary: fc.constantFrom(...ODD_METHODS) }, { weight: 1, arbitrary: fc.constantFrom(...UNKNOWN_METHODS) })
        .map(
          (method): Change =>
            (r) => {
              r.method = method;
            },
        ),
    },
    {
      weight: 1,
      arbitrary: hostilePath(request.path).map(
        (path): Change =>
          (r) => {
            r.path = path;
          },
      ),
    },
    {
      weight: 2,
      arbitrary: hostileQuery.map(
        (query): Change =>
          (r) => {
            r.path = `${r.path}${r.path.includes('?') ? '&' : '?'}${query}`;
          },
      ),
    },
    {
      weight: 4,
      arbitrary: hostileHeaders(credentials).map(
        (apply): Change =>
          (r) =>
            apply(r.headers),
      ),
    },
    {
      weight: 4,
      arbitrary: hostileBody(typeof request.body === 'string' ? request.body : undefined).map(
        (body): Change =>
          (r) => {
            r.body = body;
          },
      ),
    },
  );
  return fc.array(change, { minLength: 1, maxLength: 2 }).map((changes) => {
    const next: FuzzRequest = { ...request, headers: { ...request.headers } };
    for (const apply of changes) apply(next);
    // The parser reads the method first: an unknown one is refused whatever follows.
    if (UNKNOWN_METHODS.includes(next.method)) next.parserRejects = 400;
    else if (headerBytes(next) > HEADER_LIMIT) next.parserRejects = 431;
    else if (next.headers.expect !== undefined && !/^100-continue$/i.test(next.headers.expect)) next.parserRejects = 417;
    return next;
  });
}

/**
 * Requests for the connector described by `document`: valid-shaped ones for every operation it documents
 * (so a new operation is fuzzed without touching this file), the same with hostile changes, and requests
 * to the fixed routes.
 */
export function requestArbitrary(document: OpenApiDocument, credentials: FuzzCredentials): fc.Arbitrary<FuzzRequest> {
  const operations = operationArbitraries(document, credentials);
  const fixed = fc.constantFrom(...FIXED_PATHS).map((path): FuzzRequest => ({ method: 'GET', path, headers: {} }));
  const valid = fc.oneof(...operations, fixed);
  return fc.oneof({ weight: 2, arbitrary: valid }, { weight: 3, arbitrary: valid.chain((request) => mutate(request, credentials)) });
}
