import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { BACKENDS } from '../support/backends';
import { BASE_ENV, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import {
  answerConsent,
  authorize,
  authorizeParams,
  codeFor,
  codeForm,
  oauthTokens,
  pendingRequestId,
  REDIRECT_URI,
  registerClient,
  tokenRequest,
} from '../support/oauth-helpers';

for (const kind of BACKENDS) {
  describe(`OAuth 2.1 authorization server [${kind}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    before(async () => {
      connector = await startConnector(kind);
    });
    after(async () => connector?.close());

    const me = (token: string) => connector.call('GET', '/v1/me', { token });
    const redeem = async (subject = newSubject()) => {
      const { clientId, tokens } = await oauthTokens(connector, subject);
      return { clientId, subject, tokens };
    };

    it('protected-resource metadata at the root and under /mcp names PUBLIC_URL as resource and authorization server', async () => {
      for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
        const res = await fetch(`${connector.baseUrl}${path}`);
        expect(res.status, path).to.equal(200);
        expect((await res.json()) as any, path).to.deep.equal({
          resource: BASE_ENV.PUBLIC_URL,
          authorization_servers: [BASE_ENV.PUBLIC_URL],
          bearer_methods_supported: ['header'],
        });
      }
    });

    it('authorization-server metadata names the issuer, the four endpoints, S256 only, CIMD and the iss parameter', async () => {
      const res = await fetch(`${connector.baseUrl}/.well-known/oauth-authorization-server`);
      const body = (await res.json()) as any;
      expect(body).to.include({
        issuer: BASE_ENV.PUBLIC_URL,
        authorization_endpoint: `${BASE_ENV.PUBLIC_URL}/oauth/authorize`,
        token_endpoint: `${BASE_ENV.PUBLIC_URL}/oauth/token`,
        registration_endpoint: `${BASE_ENV.PUBLIC_URL}/oauth/register`,
        revocation_endpoint: `${BASE_ENV.PUBLIC_URL}/oauth/revoke`,
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
      });
      expect(body.code_challenge_methods_supported).to.deep.equal(['S256']);
      expect(body.grant_types_supported).to.have.members(['authorization_code', 'refresh_token']);
    });

    it('browser clients may call the metadata, registration and token endpoints from any origin (CORS preflight 204)', async () => {
      for (const path of [
        '/.well-known/oauth-protected-resource',
        '/.well-known/oauth-authorization-server',
        '/oauth/register',
        '/oauth/token',
        '/oauth/revoke',
      ]) {
        const res = await fetch(`${connector.baseUrl}${path}`, {
          method: 'OPTIONS',
          headers: {
            origin: 'http://localhost:6274',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type',
          },
        });
        expect(res.status, path).to.equal(204);
        expect(res.headers.get('access-control-allow-origin'), path).to.equal('*');
        expect(res.headers.get('access-control-allow-headers'), path).to.include('content-type');
      }
      const metadata = await fetch(`${connector.baseUrl}/.well-known/oauth-authorization-server`, {
        headers: { origin: 'http://localhost:6274' },
      });
      expect(metadata.headers.get('access-control-allow-origin')).to.equal('*');
    });

    it('the published document offers the oauth2 authorization-code scheme beside bearer', async () => {
      const document = (await (await fetch(`${connector.baseUrl}/openapi.json`)).json()) as any;
      expect(document.components.securitySchemes.oauth2.flows.authorizationCode).to.include({
        authorizationUrl: `${BASE_ENV.PUBLIC_URL}/oauth/authorize`,
        tokenUrl: `${BASE_ENV.PUBLIC_URL}/oauth/token`,
      });
      expect(document.paths['/v1/me'].get.security).to.deep.equal([{ bearerAuth: [] }, { oauth2: [] }]);
    });

    it('a full code flow: the dashboard sees the client, approval redirects with code, state and iss, and /v1/me shows the client', async () => {
      const clientId = await registerClient(connector.baseUrl);
      const { params, pkce, state } = authorizeParams(connector, clientId);
      const request = await pendingRequestId(await authorize(connector.baseUrl, params));
      const view = await connector.call('GET', `/v1/link/authorizations/${request}`, {
        headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      });
      expect(view.status).to.equal(200);
      expect(view.body.client).to.deep.equal({
        client_id: clientId,
        client_name: 'Test App',
        redirect_scheme: 'http',
        redirect_host: 'localhost:9',
      });
      const subject = newSubject();
      const redirect = await answerConsent(connector, request, { subject });
      expect(`${redirect.origin}${redirect.pathname}`).to.equal(REDIRECT_URI);
      expect(redirect.searchParams.get('state')).to.equal(state);
      expect(redirect.searchParams.get('iss')).to.equal(BASE_ENV.PUBLIC_URL);
      const res = await tokenRequest(connector.baseUrl, codeForm(clientId, redirect.searchParams.get('code')!, pkce.verifier));
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body).to.include({ token_type: 'Bearer' });
      expect(res.body.expires_in).to.be.within(60, 3600);
      expect(res.headers.get('cache-control')).to.equal('no-store');
      const identity = await me(res.body.access_token);
      expect(identity.status).to.equal(200);
      expect(identity.body.subject).to.equal(subject);
      expect(identity.body.client).to.deep.equal({ client_id: clientId, client_name: 'Test App' });
      expect(jwt.decode(res.body.access_token)).to.include({ aud: BASE_ENV.PUBLIC_URL, iss: BASE_ENV.PUBLIC_URL, sub: subject });
    });

    it('approval normalises the subject to NFC exactly as /v1/link does', async () => {
      const { clientId, code, verifier } = await codeFor(connector, ' jose\u0301@example.com ');
      const res = await tokenRequest(connector.baseUrl, codeForm(clientId, code, verifier));
      expect((await me(res.body.access_token)).body.subject).to.equal('jos\u00e9@example.com');
    });

    it('a refresh token rotates: the new pair works and the access token keeps the same connection', async () => {
      const { clientId, tokens } = await redeem();
      const res = await tokenRequest(connector.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      expect(res.body.refresh_token).to.not.equal(tokens.refresh_token);
      expect((await me(res.body.access_token)).body.connection_id).to.equal((await me(tokens.access_token)).body.connection_id);
    });

    it('a reused refresh token is refused and kills the connection: every token of it gets 401', async () => {
      const { clientId, tokens } = await redeem();
      const refresh = (token: string) =>
        tokenRequest(connector.baseUrl, { grant_type: 'refresh_token', refresh_token: token, client_id: clientId });
      const rotated = await refresh(tokens.refresh_token);
      expect(rotated.status).to.equal(200);
      const replay = await refresh(tokens.refresh_token);
      expect(replay.status).to.equal(400);
      expect(replay.body.error).to.equal('invalid_grant');
      expect((await me(rotated.body.access_token)).status).to.equal(401);
      expect((await refresh(rotated.body.refresh_token)).body.error).to.equal('invalid_grant');
    });

    it('once the person has approved a client, its authorize errors go back to that redirect URI with error, state and iss', async () => {
      const { clientId } = await codeFor(connector, newSubject());
      const { params, state } = authorizeParams(connector, clientId, { code_challenge_method: 'plain', code_challenge: 'y'.repeat(43) });
      const res = await authorize(connector.baseUrl, params);
      expect(res.status).to.equal(302);
      const location = new URL(res.headers.get('location')!);
      expect(`${location.origin}${location.pathname}`).to.equal(REDIRECT_URI);
      expect(location.searchParams.get('error')).to.equal('invalid_request');
      expect(location.searchParams.get('state')).to.equal(state);
      expect(location.searchParams.get('iss')).to.equal(BASE_ENV.PUBLIC_URL);
    });

    it('a code works once: the second redemption is refused and revokes what the first one got', async () => {
      const { clientId, code, verifier } = await codeFor(connector, newSubject());
      const first = await tokenRequest(connector.baseUrl, codeForm(clientId, code, verifier));
      expect(first.status).to.equal(200);
      const second = await tokenRequest(connector.baseUrl, codeForm(clientId, code, verifier));
      expect(second.body.error).to.equal('invalid_grant');
      expect((await me(first.body.access_token)).status).to.equal(401);
    });

    it('a code redeemed by several concurrent requests yields tokens exactly once', async () => {
      const { clientId, code, verifier } = await codeFor(connector, newSubject());
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => tokenRequest(connector.baseUrl, codeForm(clientId, code, verifier))),
      );
      expect(answers.filter((answer) => answer.status === 200)).to.have.length(1);
      expect(answers.filter((answer) => answer.body.error === 'invalid_grant')).to.have.length(7);
    });

    it('a redirect_uri that is not registered is shown as an error, never redirected to', async () => {
      const clientId = await registerClient(connector.baseUrl);
      const { params } = authorizeParams(connector, clientId, { redirect_uri: 'https://attacker.example/cb' });
      const res = await authorize(connector.baseUrl, params);
      expect(res.status).to.equal(400);
      expect(res.headers.get('location')).to.equal(null);
      expect(((await res.json()) as any).error).to.equal('invalid_request');
    });

    it('a token request whose redirect_uri differs from the authorization request is refused', async () => {
      const { clientId, code, verifier } = await codeFor(connector, newSubject());
      const res = await tokenRequest(connector.baseUrl, codeForm(clientId, code, verifier, 'http://localhost:9/other'));
      expect(res.body.error).to.equal('invalid_grant');
    });

    it('an unknown client is shown invalid_client at authorize and refused at the token endpoint', async () => {
      const { params } = authorizeParams(connector, 'dcr_doesnotexist000000000');
      const res = await authorize(connector.baseUrl, params);
      expect(res.status).to.equal(400);
      expect(((await res.json()) as any).error).to.equal('invalid_client');
      const token = await tokenRequest(connector.baseUrl, codeForm('dcr_doesnotexist000000000', 'abc', 'x'.repeat(43)));
      expect(token.status).to.equal(401);
      expect(token.body.error).to.equal('invalid_client');
    });

    for (const [what, url] of [
      ['http', 'http://clients.example.com/app.json'],
      ['127.0.0.1', 'https://127.0.0.1/app.json'],
      ['10.x', 'https://10.1.2.3/app.json'],
      ['169.254.x', 'https://169.254.169.254/latest/meta-data'],
      ['an IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/app.json'],
      ['an IPv4-mapped loopback in hex', 'https://[::ffff:7f00:1]/app.json'],
      ['an IPv4-compatible loopback in hex', 'https://[::7f00:1]/app.json'],
      ['an IPv4-compatible private address', 'https://[::a00:1]/app.json'],
      ['a NAT64 private address', 'https://[64:ff9b::a9fe:a9fe]/app.json'],
      ['a 6to4 private address', 'https://[2002:c0a8:101::1]/app.json'],
      ['an IPv6 link-local address', 'https://[fe80::1]/app.json'],
      ['an IPv6 unique-local address', 'https://[fd00::1]/app.json'],
      ['the IPv6 unspecified address', 'https://[::]/app.json'],
      ['an IPv6 multicast address', 'https://[ff02::1]/app.json'],
      ['an IPv6 documentation address', 'https://[2001:db8::1]/app.json'],
      ['a host name that resolves to loopback', 'https://localhost/app.json'],
    ]) {
      it(`a client metadata document URL that is ${what} is refused before anything is fetched`, async () => {
        const { params } = authorizeParams(connector, url);
        const res = await authorize(connector.baseUrl, params);
        expect(res.status).to.equal(400);
        const body = (await res.json()) as any;
        expect(body.error).to.equal('invalid_client');
        expect(body.error_description).to.match(what === 'http' ? /https/ : /public internet/);
      });
    }

    it('a resource other than PUBLIC_URL is refused with invalid_target', async () => {
      const { clientId } = await codeFor(connector, newSubject());
      const { params } = authorizeParams(connector, clientId, { resource: 'https://other.example.com' });
      const location = new URL((await authorize(connector.baseUrl, params)).headers.get('location')!);
      expect(location.searchParams.get('error')).to.equal('invalid_target');
    });

    it('a token for another audience is refused with 401, even signed with the right key', async () => {
      const key = deriveKeys(BASE_ENV.CONNECTOR_SECRET).tokenKey;
      const { tokens } = await redeem();
      const claims = jwt.decode(tokens.access_token) as jwt.JwtPayload;
      const foreign = jwt.sign({ ...claims, aud: 'https://other.example.com' }, key, { algorithm: 'HS256' });
      expect((await me(tokens.access_token)).status).to.equal(200);
      expect((await me(foreign)).status).to.equal(401);
    });

    it('a denied consent sends the browser back with access_denied, state and iss, and the request cannot be answered again', async () => {
      const clientId = await registerClient(connector.baseUrl);
      const { params, state } = authorizeParams(connector, clientId);
      const request = await pendingRequestId(await authorize(connector.baseUrl, params));
      const redirect = await answerConsent(connector, request, { deny: true });
      expect(redirect.searchParams.get('error')).to.equal('access_denied');
      expect(redirect.searchParams.get('state')).to.equal(state);
      expect(redirect.searchParams.get('iss')).to.equal(BASE_ENV.PUBLIC_URL);
      expect(redirect.searchParams.get('code')).to.equal(null);
      const again = await connector.call('POST', `/v1/link/authorizations/${request}`, {
        body: { subject: newSubject() },
        headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      });
      expect(again.status).to.equal(404);
    });

    it('a wrong or missing x-link-secret on both consent endpoints is a 401 problem, and the request stays answerable', async () => {
      const clientId = await registerClient(connector.baseUrl);
      const request = await pendingRequestId(await authorize(connector.baseUrl, authorizeParams(connector, clientId).params));
      for (const headers of [{ 'x-link-secret': 'wrong' }, {}] as Array<Record<string, string>>) {
        const read = await connector.call('GET', `/v1/link/authorizations/${request}`, { headers });
        const answer = await connector.call('POST', `/v1/link/authorizations/${request}`, { headers, body: { subject: newSubject() } });
        for (const res of [read, answer]) {
          expect(res.status).to.equal(401);
          expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
        }
      }
      await answerConsent(connector, request, { subject: newSubject() });
    });

    it('/v1/link/revoke by subject ends OAuth grants: the access token gets 401 and the refresh token is refused', async () => {
      const { clientId, subject, tokens } = await redeem();
      const res = await connector.call('POST', '/v1/link/revoke', {
        body: { subject },
        headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      });
      expect(res.body.revoked).to.equal(1);
      expect((await me(tokens.access_token)).status).to.equal(401);
      const refresh = await tokenRequest(connector.baseUrl, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token,
        client_id: clientId,
      });
      expect(refresh.body.error).to.equal('invalid_grant');
    });

    it('/oauth/revoke with a refresh token ends the connection (RFC 7009), and an unknown token still answers 200', async () => {
      const { clientId, tokens } = await redeem();
      const revoke = (token: string) =>
        fetch(`${connector.baseUrl}/oauth/revoke`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, client_id: clientId }),
        });
      expect((await revoke(tokens.refresh_token)).status).to.equal(200);
      expect((await me(tokens.access_token)).status).to.equal(401);
      expect((await revoke('not-a-token')).status).to.equal(200);
    });

    it('no code, verifier, access or refresh token ever reaches the log, through a flow with refusals', async () => {
      const { clientId, code, verifier } = await codeFor(connector, newSubject());
      await tokenRequest(connector.baseUrl, codeForm(clientId, code, 'z'.repeat(43)));
      const again = await codeFor(connector, newSubject(), clientId);
      const tokens = (await tokenRequest(connector.baseUrl, codeForm(clientId, again.code, again.verifier))).body;
      await tokenRequest(connector.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
      await tokenRequest(connector.baseUrl, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
      const log = connector.logs.text();
      expect(log).to.include('/oauth/token');
      for (const secret of [code, verifier, again.code, again.verifier, tokens.access_token, tokens.refresh_token])
        expect(log).to.not.include(secret);
    });

    it('dynamic registration refuses confidential clients and non-https redirect URIs', async () => {
      for (const body of [
        { client_name: 'x', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_post' },
        { client_name: 'x', redirect_uris: ['http://app.example.com/cb'] },
      ]) {
        const res = await fetch(`${connector.baseUrl}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status).to.equal(400);
        expect(((await res.json()) as any).error).to.match(/^invalid_(client_metadata|redirect_uri)$/);
      }
    });
  });
}
