import { auth, type CallToolResult, Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { type RunningApi, startApi } from '../../api/start-api';
import type { CimdFetchOptions } from '../../shared/domain/oauth/cimd-fetcher';
import { loadConfig } from '../../shared/platform/config/config';
import { createLogger } from '../../shared/platform/logging/logger';
import { BACKENDS } from '../support/backends';
import { checkedClient } from '../support/checked-client';
import { CIMD_HOST, type CimdServer, startCimdServer } from '../support/cimd-server';
import { BASE_ENV, type ConnectorUnderTest, inProcessWorker, newSubject, startConnector } from '../support/harness';
import { LogCapture } from '../support/log-capture';
import { authorize, authorizeParams, codeFor, oauthTarget, REDIRECT_URI } from '../support/oauth-helpers';
import { replicaFetch, TestOAuthProvider } from '../support/oauth-sdk-client';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

type FetchFn = ReturnType<typeof replicaFetch>['fetchFn'];
const PUBLIC_URL = BASE_ENV.PUBLIC_URL;

async function getMe(provider: TestOAuthProvider, fetchFn: FetchFn, mcpUrl: URL): Promise<Record<string, any>> {
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: fetchFn }));
  try {
    const result = (await client.callTool({ name: 'get_me', arguments: {} })) as CallToolResult;
    expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
    return result.structuredContent as Record<string, any>;
  } finally {
    await client.close();
  }
}

/**
 * The whole dance with the official SDK client: 401 → discovery → registration (DCR, or CIMD when the
 * provider has a metadata URL) → authorize → the test plays browser and dashboard → token → tools/call →
 * refresh → revoke → 401. `dashboard` is the fetch the dashboard's calls go through.
 */
async function dance(
  provider: TestOAuthProvider,
  fetchFn: FetchFn,
  dashboardFetch: FetchFn = fetchFn,
  publicUrl: string = PUBLIC_URL,
): Promise<void> {
  const MCP_URL = new URL(`${publicUrl}/mcp`);
  const subject = newSubject();
  const first = new Client({ name: 'oauth-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(MCP_URL, { authProvider: provider, fetch: fetchFn });
  let refused: unknown;
  await first.connect(transport).catch((error: unknown) => (refused = error));
  expect(refused, 'the first connection needs authorization').to.be.instanceOf(UnauthorizedError);
  const authorizationUrl = provider.authorizationUrl!;
  expect(authorizationUrl.searchParams.get('code_challenge_method')).to.equal('S256');

  // The browser: the connector sends it to the consent screen with the pending request's id.
  const toConsent = await fetchFn(authorizationUrl, { redirect: 'manual' });
  expect(toConsent.status, await toConsent.clone().text()).to.equal(302);
  const request = new URL(toConsent.headers.get('location')!).searchParams.get('request')!;
  // The dashboard: reads the request, then approves it for the person.
  const secret = { 'x-link-secret': BASE_ENV.LINK_SECRET };
  const view = (await (await dashboardFetch(`${publicUrl}/v1/link/authorizations/${request}`, { headers: secret })).json()) as any;
  expect(view.client.client_name).to.equal('SDK Test App');
  const answer = await dashboardFetch(`${publicUrl}/v1/link/authorizations/${request}`, {
    method: 'POST',
    headers: { ...secret, 'content-type': 'application/json' },
    body: JSON.stringify({ subject }),
  });
  const redirect = new URL(((await answer.json()) as any).redirect_to);
  expect(`${redirect.origin}${redirect.pathname}`).to.equal(REDIRECT_URI);

  await transport.finishAuth(redirect.searchParams);
  const me = await getMe(provider, fetchFn, MCP_URL);
  expect(me.subject).to.equal(subject);
  const clientId = (await provider.clientInformation())!.client_id;
  expect(me.client.client_id).to.equal(clientId);

  const before = (await provider.tokens())!;
  expect(await auth(provider, { serverUrl: MCP_URL, fetchFn })).to.equal('AUTHORIZED');
  const after = (await provider.tokens())!;
  expect(after.refresh_token).to.not.equal(before.refresh_token);
  expect((await getMe(provider, fetchFn, MCP_URL)).connection_id).to.equal(me.connection_id);

  const revoked = await fetchFn(`${publicUrl}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: after.refresh_token!, client_id: clientId }),
  });
  expect(revoked.status).to.equal(200);
  const denied = await fetchFn(MCP_URL, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${after.access_token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
  expect(denied.status).to.equal(401);
  expect(denied.headers.get('www-authenticate')).to.include('resource_metadata=');
}

const clientDocument = (url: string) =>
  JSON.stringify({ client_id: url, client_name: 'SDK Test App', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });

describe('the official SDK client through the whole OAuth dance', function () {
  this.timeout(120_000);
  let cimd: CimdServer;
  let trust: CimdFetchOptions;
  before(async () => {
    cimd = await startCimdServer();
    trust = { testHosts: { [CIMD_HOST]: '127.0.0.1' }, testCa: cimd.ca };
    cimd.serve('/client.json', clientDocument(`${cimd.origin}/client.json`));
    cimd.serve(
      '/big.json',
      JSON.stringify({ client_id: `${cimd.origin}/big.json`, redirect_uris: [REDIRECT_URI], padding: 'x'.repeat(10_000) }),
    );
    cimd.serve('/other.json', clientDocument('https://elsewhere.example.com/client.json'));
  });
  after(async () => cimd?.close());

  for (const kind of BACKENDS) {
    describe(`[${kind}]`, () => {
      let connector: ConnectorUnderTest;
      before(async () => {
        connector = await startConnector(kind, {}, { cimdFetch: trust });
      });
      after(async () => connector?.close());

      it('registers by DCR and completes 401 → discovery → consent → token → tools/call → refresh → revoke → 401', async () => {
        await dance(new TestOAuthProvider(), replicaFetch(PUBLIC_URL, [connector.baseUrl]).fetchFn);
      });

      it('uses a Client ID Metadata Document served over https and completes the same dance', async () => {
        const { fetchFn, served } = replicaFetch(PUBLIC_URL, [connector.baseUrl]);
        await dance(new TestOAuthProvider(`${cimd.origin}/client.json`), fetchFn);
        expect(served.map((entry) => entry.path)).to.not.include('/oauth/register');
      });

      it('refuses a metadata document over the size limit', async () => {
        const res = await authorize(connector.baseUrl, authorizeParams(connector, `${cimd.origin}/big.json`).params);
        expect(res.status).to.equal(400);
        expect(((await res.json()) as any).error_description).to.match(/too large/);
      });

      it('refuses a metadata document that names another client_id', async () => {
        const res = await authorize(connector.baseUrl, authorizeParams(connector, `${cimd.origin}/other.json`).params);
        expect(res.status).to.equal(400);
        expect(((await res.json()) as any).error).to.equal('invalid_client');
      });

      it('a metadata-document client nobody has approved gets its authorize errors shown, and redirected once a person approved it', async () => {
        const path = `/unapproved-${kind}.json`;
        cimd.serve(path, clientDocument(`${cimd.origin}${path}`));
        const clientId = `${cimd.origin}${path}`;
        const plain = { code_challenge_method: 'plain', code_challenge: 'y'.repeat(43) };
        const shown = await authorize(connector.baseUrl, authorizeParams(connector, clientId, plain).params);
        expect(shown.status).to.equal(400);
        expect(shown.headers.get('location')).to.equal(null);
        await codeFor(connector, newSubject(), clientId);
        const redirected = await authorize(connector.baseUrl, authorizeParams(connector, clientId, plain).params);
        expect(redirected.status).to.equal(302);
        expect(new URL(redirected.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
      });
    });
  }

  describe('[PUBLIC_URL with a path]', () => {
    const base = 'http://localhost:8787/connector';
    let connector: ConnectorUnderTest;
    before(async () => {
      connector = await startConnector('memory', { PUBLIC_URL: base });
    });
    after(async () => connector?.close());

    it('the metadata sits at the RFC 9728 / RFC 8414 placement, names the path, and the SDK dance completes under the path', async () => {
      const resource = (await (await fetch(`${connector.baseUrl}/.well-known/oauth-protected-resource/connector`)).json()) as any;
      expect(resource).to.deep.include({ resource: base, authorization_servers: [base] });
      const server = (await (await fetch(`${connector.baseUrl}/.well-known/oauth-authorization-server/connector`)).json()) as any;
      expect(server).to.include({ issuer: base, token_endpoint: `${base}/oauth/token`, authorization_endpoint: `${base}/oauth/authorize` });
      await dance(new TestOAuthProvider(), replicaFetch(base, [connector.baseUrl]).fetchFn, undefined, base);
    });
  });

  describe('[two replicas on one Redis]', () => {
    let redis: TestRedis;
    let replicas: RunningApi[];
    let bases: string[];
    before(async () => {
      redis = await startRedis();
      const env = { ...BASE_ENV, REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'oauth-replicas:' };
      const config = loadConfig(env, 'dev');
      const logger = createLogger('warn', 'oauth-replicas', new LogCapture());
      replicas = await Promise.all([
        startApi(config, logger, { cimdFetch: trust, env }),
        startApi(config, logger, { jobConsumer: inProcessWorker(config, logger), cimdFetch: trust, env }),
      ]);
      bases = replicas.map((api) => `http://127.0.0.1:${api.port}`);
      for (const base of bases) await waitFor(async () => (await fetch(`${base}/readyz`)).status === 200, { what: `${base} ready` });
    });
    after(async () => {
      await Promise.all((replicas ?? []).map((api) => api.close()));
      await redis?.stop();
    });

    it('a client approved through one replica has its authorize errors redirected by the other (the approval is in Redis)', async () => {
      const first = oauthTarget(
        { baseUrl: bases[0], call: (await checkedClient(bases[0])).call },
        { publicUrl: PUBLIC_URL, linkSecret: BASE_ENV.LINK_SECRET },
      );
      const { clientId } = await codeFor(first, newSubject());
      const plain = { code_challenge_method: 'plain', code_challenge: 'y'.repeat(43) };
      const res = await authorize(bases[1], authorizeParams(first, clientId, plain).params);
      expect(res.status).to.equal(302);
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).to.equal('invalid_request');
    });

    for (const [what, metadataUrl] of [
      ['DCR', undefined],
      ['CIMD', 'client.json'],
    ] as const) {
      it(`a ${what} client's every step lands on the other replica than the step before, and the dance completes`, async () => {
        const { fetchFn, served } = replicaFetch(PUBLIC_URL, bases);
        // The dashboard is a separate caller: it alternates on its own, starting on the second replica.
        const dashboard = replicaFetch(PUBLIC_URL, [...bases].reverse());
        await dance(new TestOAuthProvider(metadataUrl && `${cimd.origin}/${metadataUrl}`), fetchFn, dashboard.fetchFn);
        for (let i = 1; i < served.length; i++) expect(served[i].replica).to.not.equal(served[i - 1].replica);
        const authorizeAt = served.find((entry) => entry.path === '/oauth/authorize')!.replica;
        expect(
          dashboard.served.some((entry) => entry.replica !== authorizeAt),
          'consent answered on another replica',
        ).to.equal(true);
      });
    }
  });
});
