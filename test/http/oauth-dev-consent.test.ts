import { expect } from 'chai';
import { BASE_ENV, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import {
  authorize,
  authorizeParams,
  codeForm,
  pendingRequestId,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from '../support/oauth-helpers';

/** Reads the dev consent page for a request and returns the hidden fields of its form. */
async function openPage(connector: ConnectorUnderTest, request: string): Promise<{ html: string; csrf: string }> {
  const res = await fetch(`${connector.baseUrl}/oauth/dev-consent?request=${request}`);
  expect(res.status).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/html/);
  const html = await res.text();
  return { html, csrf: /name="csrf" value="([^"]+)"/.exec(html)![1] };
}

function submit(connector: ConnectorUnderTest, form: Record<string, string>, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${connector.baseUrl}/oauth/dev-consent`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
}

describe('the dev-only consent page', function () {
  this.timeout(60_000);

  describe('asked for (npm run dev), with a localhost PUBLIC_URL, no CONSENT_URL and the default HOST', () => {
    let connector: ConnectorUnderTest;
    before(async () => {
      connector = await startConnector('memory', {}, { devConsent: true });
    });
    after(async () => connector?.close());

    async function pending() {
      const clientId = await registerClient(connector.baseUrl);
      const { params, pkce } = authorizeParams(connector, clientId);
      const res = await authorize(connector.baseUrl, params);
      expect(res.headers.get('location')).to.match(new RegExp(`^${BASE_ENV.PUBLIC_URL}/oauth/dev-consent\\?request=`));
      return { clientId, pkce, request: await pendingRequestId(res) };
    }

    it('authorize sends the browser to the page; Approve redirects to the app with a code that redeems', async () => {
      const { clientId, pkce, request } = await pending();
      const { html, csrf } = await openPage(connector, request);
      expect(html).to.include('Test App');
      expect(html, "the redirect URI's scheme and host").to.include('sent back to <strong>http://localhost:9</strong>');
      const res = await submit(connector, { request, csrf, subject: newSubject(), decision: 'approve' }, { origin: BASE_ENV.PUBLIC_URL });
      expect(res.status).to.equal(303);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).to.equal(REDIRECT_URI);
      const token = await tokenRequest(connector.baseUrl, codeForm(clientId, location.searchParams.get('code')!, pkce.verifier));
      expect(token.status).to.equal(200);
    });

    it('Deny redirects to the app with access_denied', async () => {
      const { request } = await pending();
      const { csrf } = await openPage(connector, request);
      const res = await submit(connector, { request, csrf, decision: 'deny' });
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).to.equal('access_denied');
    });

    it('a post without the form token, or from another origin, is refused with 403 and leaves the request open', async () => {
      const { request } = await pending();
      const { csrf } = await openPage(connector, request);
      expect((await submit(connector, { request, subject: newSubject(), decision: 'approve' })).status).to.equal(403);
      expect((await submit(connector, { request, csrf: 'x'.repeat(43), subject: newSubject(), decision: 'approve' })).status).to.equal(403);
      expect(
        (await submit(connector, { request, csrf, subject: newSubject(), decision: 'approve' }, { origin: 'https://evil.example' })).status,
      ).to.equal(403);
      await openPage(connector, request);
    });
  });

  /**
   * Authorize sends the browser to `DASHBOARD_URL/connect`, and the page is absent: GET and POST answer 404
   * even for that live request, which a served page would show (200) and answer.
   */
  async function expectNoPage(connector: ConnectorUnderTest, redirectUri = REDIRECT_URI): Promise<void> {
    const clientId = await registerClient(connector.baseUrl, [redirectUri]);
    const res = await authorize(connector.baseUrl, authorizeParams(connector, clientId, { redirect_uri: redirectUri }).params);
    expect(res.headers.get('location')).to.match(new RegExp(`^${BASE_ENV.DASHBOARD_URL}/connect\\?request=authreq_`));
    const request = await pendingRequestId(res);
    expect((await fetch(`${connector.baseUrl}/oauth/dev-consent?request=${request}`)).status).to.equal(404);
    expect(
      (await submit(connector, { request, decision: 'approve', subject: newSubject() }, { origin: BASE_ENV.PUBLIC_URL })).status,
    ).to.equal(404);
  }

  const cases: Array<{ what: string; env: Record<string, string>; devConsent: boolean; redirectUri?: string }> = [
    { what: 'not asked for (npm start, the image), with a localhost PUBLIC_URL and no CONSENT_URL', env: {}, devConsent: false },
    {
      what: 'asked for, with a PUBLIC_URL that is not loopback',
      env: { PUBLIC_URL: 'https://connector.example.com' },
      devConsent: true,
      redirectUri: 'https://app.example.com/cb',
    },
    { what: 'asked for, with a HOST that is not loopback (reachable from the network)', env: { HOST: '0.0.0.0' }, devConsent: true },
  ];
  for (const { what, env, devConsent, redirectUri } of cases) {
    describe(what, () => {
      let connector: ConnectorUnderTest;
      before(async () => {
        connector = await startConnector('memory', env, { devConsent });
      });
      after(async () => connector?.close());

      it('the page does not exist (404) and authorize sends the browser to DASHBOARD_URL/connect', async () => {
        await expectNoPage(connector, redirectUri);
      });
    });
  }
});
