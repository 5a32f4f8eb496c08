import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { BASE_ENV, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import {
  answerConsent,
  authorize,
  authorizeParams,
  oauthTokens,
  pendingRequestId,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from '../support/oauth-helpers';
import { waitFor } from '../testkit/wait-for';

/** `POST /oauth/register` with any body; the answer's status and JSON. */
async function register(baseUrl: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

/** Whether the connector still knows a client: `/oauth/authorize` parks a request for it (302) or refuses it. */
async function known(connector: ConnectorUnderTest, clientId: string): Promise<boolean> {
  const res = await authorize(connector.baseUrl, authorizeParams(connector, clientId).params);
  if (res.status === 302) return true;
  expect(res.status).to.equal(400);
  expect(((await res.json()) as any).error).to.equal('invalid_client');
  return false;
}

/** A client that has completed an authorization: registered, approved, code redeemed; answers its refresh. */
async function grantedClient(connector: ConnectorUnderTest): Promise<{ clientId: string; refresh(): Promise<number> }> {
  const { clientId, tokens } = await oauthTokens(connector, newSubject());
  let refreshToken: string = tokens.refresh_token;
  return {
    clientId,
    refresh: async () => {
      const res = await tokenRequest(connector.baseUrl, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
      if (res.status === 200) refreshToken = res.body.refresh_token;
      return res.status;
    },
  };
}

for (const kind of BACKENDS) {
  describe(`OAuth dynamic registration: cap, eviction and expiry [${kind}]`, function () {
    this.timeout(60_000);

    describe('with OAUTH_MAX_REGISTERED_CLIENTS=5', () => {
      let connector: ConnectorUnderTest;
      before(async () => {
        connector = await startConnector(kind, { OAUTH_MAX_REGISTERED_CLIENTS: '5' });
      });
      after(async () => connector?.close());

      it('at the cap, eight more registrations succeed by evicting the oldest never-used clients, and a client with a grant still refreshes', async () => {
        const granted = await grantedClient(connector);
        const unused: string[] = [];
        for (let i = 0; i < 4; i++) unused.push(await registerClient(connector.baseUrl, [REDIRECT_URI], `unused ${i}`));
        const later: string[] = [];
        for (let i = 0; i < 8; i++) {
          const res = await register(connector.baseUrl, { client_name: `flood ${i}`, redirect_uris: [REDIRECT_URI] });
          expect(res.status, JSON.stringify(res.body)).to.equal(201);
          later.push(res.body.client_id);
        }
        expect(await granted.refresh()).to.equal(200);
        expect(await known(connector, granted.clientId), 'the granted client').to.equal(true);
        // Oldest unused first: the four registered before the flood are gone, the newest four remain.
        for (const clientId of [...unused, ...later.slice(0, 4)]) expect(await known(connector, clientId), clientId).to.equal(false);
        for (const clientId of later.slice(4)) expect(await known(connector, clientId), clientId).to.equal(true);
      });
    });

    describe('with OAUTH_MAX_REGISTERED_CLIENTS=2, every client holding a grant', () => {
      let connector: ConnectorUnderTest;
      before(async () => {
        connector = await startConnector(kind, { OAUTH_MAX_REGISTERED_CLIENTS: '2' });
      });
      after(async () => connector?.close());

      it('a registration when no client can be evicted answers 503 temporarily_unavailable, and both grants keep refreshing', async () => {
        const clients = [await grantedClient(connector), await grantedClient(connector)];
        const res = await register(connector.baseUrl, { client_name: 'one too many', redirect_uris: [REDIRECT_URI] });
        expect(res.status).to.equal(503);
        expect(res.body.error).to.equal('temporarily_unavailable');
        for (const client of clients) expect(await client.refresh()).to.equal(200);
      });
    });

    describe('with OAUTH_MAX_REGISTERED_CLIENTS=1', () => {
      let connector: ConnectorUnderTest;
      before(async () => {
        connector = await startConnector(kind, { OAUTH_MAX_REGISTERED_CLIENTS: '1' });
      });
      after(async () => connector?.close());

      it('a client evicted while its person is on the consent screen: approval sends the app back with access_denied and makes no grant', async () => {
        const evicted = await registerClient(connector.baseUrl);
        const request = await pendingRequestId(await authorize(connector.baseUrl, authorizeParams(connector, evicted).params));
        await registerClient(connector.baseUrl);
        const subject = newSubject();
        const redirect = await answerConsent(connector, request, { subject });
        expect(redirect.searchParams.get('error')).to.equal('access_denied');
        expect(redirect.searchParams.get('error_description')).to.equal('the app registration has expired; register again');
        expect(redirect.searchParams.get('code')).to.equal(null);
        const connections = await connector.call(
          'GET',
          `/v1/link/connections?subject=${encodeURIComponent(subject)}&include_revoked=true`,
          { headers: { 'x-link-secret': BASE_ENV.LINK_SECRET } },
        );
        expect(connections.status).to.equal(200);
        expect(connections.body.items).to.deep.equal([]);
      });
    });

    describe('with OAUTH_UNUSED_CLIENT_TTL_SECONDS=3', () => {
      let connector: ConnectorUnderTest;
      before(async () => {
        connector = await startConnector(kind, { OAUTH_UNUSED_CLIENT_TTL_SECONDS: '3' });
      });
      after(async () => connector?.close());

      it('a client that never completed an authorization expires after the TTL, while one that did keeps working', async () => {
        const unused = await registerClient(connector.baseUrl);
        const granted = await grantedClient(connector);
        await waitFor(async () => !(await known(connector, unused)), { timeoutMs: 15_000, what: 'the unused client to expire' });
        expect(await granted.refresh()).to.equal(200);
        expect(await known(connector, granted.clientId)).to.equal(true);
      });
    });
  });
}

describe('OAuth dynamic registration: metadata size limits [memory]', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;
  before(async () => {
    connector = await startConnector('memory');
  });
  after(async () => connector?.close());

  const long = (length: number) => `https://app.example.com/${'a'.repeat(length - 'https://app.example.com/'.length)}`;
  for (const [what, body] of [
    ['a client_name of 101 characters', { client_name: 'n'.repeat(101), redirect_uris: [REDIRECT_URI] }],
    ['six redirect URIs', { client_name: 'x', redirect_uris: Array.from({ length: 6 }, (_, i) => `${REDIRECT_URI}${i}`) }],
    ['a redirect URI of 513 characters', { client_name: 'x', redirect_uris: [long(513)] }],
    [
      'the 14 KB registration of the review (ten 1,400-character URIs)',
      { client_name: 'x'.repeat(100), redirect_uris: Array.from({ length: 10 }, () => long(1400)) },
    ],
  ] as const) {
    it(`a registration with ${what} is refused with 400 invalid_client_metadata`, async () => {
      const res = await register(connector.baseUrl, body);
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('invalid_client_metadata');
    });
  }

  it('a registration at every limit (100-character name, five 512-character URIs) is accepted', async () => {
    const res = await register(connector.baseUrl, {
      client_name: 'n'.repeat(100),
      redirect_uris: Array.from({ length: 5 }, (_, i) => long(512 - 1) + i),
    });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  });
});
