import { expect } from 'chai';
import { directCallMatcher } from '../../api/mcp/direct-tool-call';
import { compileArgumentChecks } from '../../api/mcp/tool-calls';
import { buildToolDefinitions } from '../../shared/contract/mcp/tool-definitions';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { type RawMcpCall, rawToolCall } from '../support/mcp-client';

/** The security headers every answer carries: OWASP's set for REST answers (lower-case names). */
const EXPECTED = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
};

/** Headers for pages, or for resources a browser sends cookies for, that a JSON API's answers do without. */
const ABSENT = [
  'cross-origin-opener-policy',
  'cross-origin-resource-policy',
  'referrer-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
  'x-powered-by',
];

/** The one answer that is a page a browser renders: it also keeps its address out of the `Referer` of its links. */
const PAGE = 'GET / as HTML';

function expectSecurityHeaders(headers: Headers, what: string): void {
  for (const [name, value] of Object.entries(EXPECTED)) expect(headers.get(name), `${what}: ${name}`).to.equal(value);
  for (const name of ABSENT) {
    const expected = what === PAGE && name === 'referrer-policy' ? 'no-referrer' : null;
    expect(headers.get(name), `${what}: ${name}`).to.equal(expected);
  }
}

describe('security headers on every kind of answer', () => {
  let connector: ConnectorUnderTest;
  let token: string;
  before(async () => {
    connector = await startConnector('memory');
    token = await connector.link(newSubject());
  });
  after(async () => connector?.close());

  it('an operation’s 200, a 401, a 404 problem, the published documents and the root page all carry exactly the configured security headers, the HTML page a referrer policy too, the 200 each of its fields once', async () => {
    const answers = {
      'GET /v1/me': await connector.call('GET', '/v1/me', { token }),
      'GET /v1/me without a token': await connector.call('GET', '/v1/me'),
      'GET /v1/nothing-here': await connector.call('GET', '/v1/nothing-here', { token }),
      'GET /openapi.json': await connector.call('GET', '/openapi.json'),
      'GET /llms.txt': await connector.call('GET', '/llms.txt'),
      [PAGE]: await connector.call('GET', '/', { headers: { accept: 'text/html' } }),
      'GET / as JSON': await connector.call('GET', '/', { headers: { accept: 'application/json' } }),
    };
    expect(answers['GET /v1/me'].status).to.equal(200);
    expect(answers['GET /v1/me without a token'].status).to.equal(401);
    expect(answers['GET /v1/nothing-here'].status).to.equal(404);
    expect(answers[PAGE].headers.get('content-type')).to.match(/^text\/html/);
    for (const [what, answer] of Object.entries(answers)) expectSecurityHeaders(answer.headers, what);
    // An operation's answer head is written in one call: each of its fields once, the RateLimit ones included.
    const me = answers['GET /v1/me'].headers;
    expect([me.get('cache-control'), me.get('content-type')]).to.deep.equal(['no-store', 'application/json; charset=utf-8']);
    expect(me.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    expect(me.get('ratelimit-policy')).to.match(/^"subject";q=\d+;w=60$/);
    expect(me.get('ratelimit')).to.match(/^"subject";r=\d+;t=\d+$/);
  });

  it('MCP answers carry them too, with no-store, the request id and the RateLimit fields, whether the call is served directly, by the SDK or refused', async () => {
    const send = ({ headers, body }: RawMcpCall) =>
      fetch(`${connector.baseUrl}/mcp`, {
        method: 'POST',
        headers: { ...headers, authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    const call = (name: string, meta: Record<string, unknown> = {}) => send(rawToolCall(name, {}, { meta }));
    // A progress token sends the call to the SDK; without one it is served directly.
    const tools = buildToolDefinitions(publishedOperations());
    const matches = directCallMatcher(tools, compileArgumentChecks(tools));
    expect(matches(rawToolCall('get_me', {}))).to.not.equal(undefined);
    expect(matches(rawToolCall('get_me', {}, { meta: { progressToken: 'p' } }))).to.equal(undefined);
    for (const [what, res] of [
      ['direct', await call('get_me')],
      ['SDK', await call('get_me', { progressToken: 'p' })],
    ] as const) {
      expect(res.status, what).to.equal(200);
      expectSecurityHeaders(res.headers, `MCP ${what}`);
      expect([res.headers.get('cache-control'), res.headers.get('content-type')], what).to.deep.equal(['no-store', 'application/json']);
      expect(res.headers.get('x-request-id'), what).to.match(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('ratelimit-policy'), what).to.match(/^"subject";q=\d+;w=60$/);
      expect(res.headers.get('ratelimit'), what).to.match(/^"subject";r=\d+;t=\d+$/);
    }
    // Refused before admission: the error middleware writes the head.
    const refused = await fetch(`${connector.baseUrl}/mcp`, { headers: { authorization: `Bearer ${token}` } });
    expect(refused.status).to.equal(405);
    expectSecurityHeaders(refused.headers, 'MCP 405');
    expect(refused.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
  });
});
