import { expect } from 'chai';
import { mcpBodyLimit } from '../../shared/contract/operations/body-limit';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { connectMcp } from '../support/mcp-client';

const METADATA = 'http://localhost:8787/.well-known/oauth-protected-resource';

/** A 2025-11-25 `initialize` request: the first message a handshake client sends. */
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(
  connector: ConnectorUnderTest,
  {
    token,
    origin,
    body = INITIALIZE,
    contentType = 'application/json',
  }: { token?: string; origin?: string; body?: unknown; contentType?: string } = {},
) {
  const headers: Record<string, string> = { 'content-type': contentType, accept: 'application/json, text/event-stream' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (origin) headers.origin = origin;
  return fetch(`${connector.baseUrl}/mcp`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

for (const backend of BACKENDS) {
  describe(`POST /mcp over HTTP: auth, origin, methods and limits (${backend} backend)`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;

    before(async () => {
      connector = await startConnector(backend, {
        MCP_ALLOWED_ORIGINS: 'https://claude.ai, https://chatgpt.com',
        RATE_LIMIT_PER_MINUTE: '30',
      });
    });
    after(async () => connector?.close());

    it('without a token: 401 problem+json whose challenge names the RFC 9728 resource metadata', async () => {
      const res = await post(connector);
      expect(res.status).to.equal(401);
      expect(res.headers.get('www-authenticate')).to.equal(`Bearer resource_metadata="${METADATA}"`);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect((await res.json()) as object).to.include({ status: 401 });
    });

    it('with a malformed or foreign token: 401 invalid_token with the same resource metadata', async () => {
      for (const token of ['not-a-jwt', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl']) {
        const res = await post(connector, { token });
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal(`Bearer resource_metadata="${METADATA}", error="invalid_token"`);
      }
    });

    it('a revoked connection’s token is refused on the very next MCP request', async () => {
      const subject = newSubject();
      const token = await connector.link(subject);
      expect((await post(connector, { token })).status).to.equal(200);
      const revoked = await connector.call('POST', '/v1/link/revoke', {
        body: { subject },
        headers: { 'x-link-secret': connector.config.linkSecret },
      });
      expect(revoked.status).to.equal(200);
      expect((await post(connector, { token })).status).to.equal(401);
    });

    it('an Origin that is neither PUBLIC_URL’s nor listed in MCP_ALLOWED_ORIGINS is refused with 403, even with a valid token', async () => {
      const token = await connector.link(newSubject());
      for (const origin of ['https://evil.example', 'null', 'http://localhost:9999', 'https://claude.ai.evil.example']) {
        const res = await post(connector, { token, origin });
        expect(res.status, origin).to.equal(403);
        expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      }
    });

    it('no Origin, PUBLIC_URL’s origin and listed origins are served', async () => {
      const token = await connector.link(newSubject());
      for (const origin of [undefined, 'http://localhost:8787', 'https://claude.ai', 'https://chatgpt.com']) {
        const res = await post(connector, { token, origin });
        expect(res.status, String(origin)).to.equal(200);
      }
    });

    it('the initialize answer is plain JSON and issues no session id (stateless)', async () => {
      const res = await post(connector, { token: await connector.link(newSubject()) });
      expect(res.status).to.equal(200);
      expect(res.headers.get('content-type')).to.match(/^application\/json/);
      expect(res.headers.get('mcp-session-id')).to.equal(null);
      const message = (await res.json()) as { result: { protocolVersion: string; serverInfo: { name: string } } };
      expect(message.result.protocolVersion).to.equal('2025-11-25');
    });

    it('GET and DELETE /mcp answer 405 with Allow: POST', async () => {
      const token = await connector.link(newSubject());
      for (const method of ['GET', 'DELETE']) {
        const res = await fetch(`${connector.baseUrl}/mcp`, {
          method,
          headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
        });
        expect(res.status, method).to.equal(405);
        expect(res.headers.get('allow')).to.equal('POST');
        expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      }
    });

    it('a body that is not JSON answers 415, like every REST route', async () => {
      const res = await post(connector, { token: await connector.link(newSubject()), body: 'hello', contentType: 'text/plain' });
      expect(res.status).to.equal(415);
    });

    it('a body over /mcp’s limit (64 KiB for the shipped registry) answers 413 before the SDK sees it, like every REST route', async () => {
      const name = 'x'.repeat(mcpBodyLimit(OPERATIONS) + 6 * 1024);
      const big = { ...INITIALIZE, params: { ...INITIALIZE.params, clientInfo: { name, version: '1' } } };
      const res = await post(connector, { token: await connector.link(newSubject()), body: big });
      expect(res.status).to.equal(413);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
    });

    it('MCP requests and REST requests draw on the same per-subject rate limit', async () => {
      const token = await connector.link(newSubject());
      for (let i = 0; i < 15; i += 1) expect((await connector.call('GET', '/v1/me', { token })).status).to.equal(200);
      let status = 0;
      for (let i = 0; i < 16 && status !== 429; i += 1) status = (await post(connector, { token })).status;
      expect(status).to.equal(429);
    });

    it('a client mistake the SDK refuses (406 for an Accept without text/event-stream) is logged at info with its reason and no stack trace', async () => {
      const res = await fetch(`${connector.baseUrl}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${await connector.link(newSubject())}`,
        },
        body: JSON.stringify(INITIALIZE),
      });
      expect(res.status).to.equal(406);
      const requestId = res.headers.get('x-request-id');
      const raw = connector.logs.lines.filter((line) => JSON.parse(line).req_id === requestId);
      const lines = raw.map((line) => JSON.parse(line));
      expect(lines.map((line) => [line.level, line.msg])).to.deep.equal([
        [30, 'mcp request refused'],
        [30, 'request'],
      ]);
      expect(lines[0]).to.include({ status: 406 });
      expect(lines[0].reason).to.match(/^Not Acceptable: /);
      expect(raw.join('\n')).to.not.match(/stack|node_modules|\bat \w/);
    });

    it('the access log has one line per MCP request with its route, and never the token', async () => {
      const token = await connector.link(newSubject());
      const client = await connectMcp(`${connector.baseUrl}/mcp`, token, '2026-07-28');
      await client.callTool({ name: 'get_me', arguments: {} });
      await client.close();
      const lines = connector.logs
        .text()
        .split('\n')
        .filter((line) => line.includes('"route":"/mcp"'));
      expect(lines.length).to.be.greaterThan(0);
      expect(lines.every((line) => /"req_id":"[^"]+"/.test(line))).to.equal(true);
      expect(connector.logs.text()).to.not.include(token);
    });
  });
}
