import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { BASE_ENV, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import {
  authorize,
  authorizeParams,
  codeFor,
  codeForm,
  pendingRequestId,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from '../support/oauth-helpers';
import { waitFor } from '../testkit/wait-for';

for (const kind of BACKENDS) {
  describe(`OAuth 2.1 expiries [${kind}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    before(async () => {
      connector = await startConnector(kind, { OAUTH_REQUEST_TTL_SECONDS: '1', OAUTH_CODE_TTL_SECONDS: '1' });
    });
    after(async () => connector?.close());

    it('an expired pending request is gone for the dashboard: reading and answering it are 404', async () => {
      const clientId = await registerClient(connector.baseUrl);
      const request = await pendingRequestId(await authorize(connector.baseUrl, authorizeParams(connector, clientId).params));
      const headers = { 'x-link-secret': BASE_ENV.LINK_SECRET };
      await waitFor(async () => (await connector.call('GET', `/v1/link/authorizations/${request}`, { headers })).status === 404, {
        what: 'the request to expire',
      });
      expect(
        (await connector.call('POST', `/v1/link/authorizations/${request}`, { headers, body: { subject: newSubject() } })).status,
      ).to.equal(404);
    });

    it('an expired code is refused with invalid_grant', async () => {
      const { clientId, code, verifier } = await codeFor(connector, newSubject());
      const expiresAt = Date.now() + 1000;
      // Redeeming would use the code up, so the only observable condition is the clock passing its expiry.
      await waitFor(() => Date.now() > expiresAt + 1100, { what: 'the code lifetime to pass' });
      const res = await tokenRequest(connector.baseUrl, codeForm(clientId, code, verifier));
      expect(res.body).to.include({ error: 'invalid_grant', error_description: 'the code is unknown or expired' });
    });
  });
}

describe('OAuth 2.1 registration rate limit [memory]', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;
  before(async () => {
    connector = await startConnector('memory', { RATE_LIMIT_PER_MINUTE: '2' });
  });
  after(async () => connector?.close());

  it('an address over its registration budget gets 429 temporarily_unavailable with Retry-After', async () => {
    const register = () =>
      fetch(`${connector.baseUrl}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'burst', redirect_uris: [REDIRECT_URI] }),
      });
    expect((await register()).status).to.equal(201);
    expect((await register()).status).to.equal(201);
    const limited = await register();
    expect(limited.status).to.equal(429);
    expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 60);
    expect(((await limited.json()) as any).error).to.equal('temporarily_unavailable');
  });
});
