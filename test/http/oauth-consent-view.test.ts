import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { BASE_ENV, type ConnectorUnderTest, startConnector } from '../support/harness';
import { authorize, authorizeParams, pendingRequestId, registerClient } from '../support/oauth-helpers';

for (const kind of BACKENDS) {
  describe(`OAuth consent view: what the dashboard is shown [${kind}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    before(async () => {
      connector = await startConnector(kind);
    });
    after(async () => connector?.close());

    /** Registers an app, parks an authorization request for it and reads the dashboard's view of it. */
    const viewOf = async (redirectUri: string, clientName: string) => {
      const clientId = await registerClient(connector.baseUrl, [redirectUri], clientName);
      const request = await pendingRequestId(
        await authorize(connector.baseUrl, authorizeParams(connector, clientId, { redirect_uri: redirectUri }).params),
      );
      const view = await connector.call('GET', `/v1/link/authorizations/${request}`, {
        headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      });
      expect(view.status).to.equal(200);
      return { clientId, client: view.body.client };
    };

    it('a private-use-scheme redirect URI is shown with its scheme beside its host, not as the host alone', async () => {
      const { clientId, client } = await viewOf('com.example.app://evil.test/cb', 'Scheme App');
      expect(client).to.deep.equal({
        client_id: clientId,
        client_name: 'Scheme App',
        redirect_scheme: 'com.example.app',
        redirect_host: 'evil.test',
      });
    });

    it('an https redirect URI is shown as scheme https and its host with the port', async () => {
      const { client } = await viewOf('https://app.example.com:8443/cb', 'Web App');
      expect(client).to.include({ redirect_scheme: 'https', redirect_host: 'app.example.com:8443' });
    });

    it('a client name loses every bidirectional-control character, so U+202E cannot make "ppA" read "App"', async () => {
      const { client } = await viewOf(
        'https://app.example.com/cb',
        '\u202eppA\u202c Safe\u2066 App\u2069\u200e\u200f\u061c\u202a\u202b\u202d\u2067\u2068',
      );
      expect(client.client_name).to.equal('ppA Safe App');
    });
  });
}
