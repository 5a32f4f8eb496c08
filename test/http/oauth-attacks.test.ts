import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
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

// Attacks on the authorization server, each reproduced as the attacker would send it; every test here failed
// before its defence was in place (SECURITY.md, "OAuth sign-in: what the authorization server refuses").
for (const kind of BACKENDS) {
  describe(`OAuth attacks on the authorization server [${kind}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;
    before(async () => {
      connector = await startConnector(kind);
    });
    after(async () => connector?.close());

    const me = (token: string) => connector.call('GET', '/v1/me', { token });
    /** A grant of a fresh client: its tokens, as the rightful client received them. */
    const redeem = async () => {
      const { clientId, tokens } = await oauthTokens(connector, newSubject());
      return { clientId, tokens };
    };

    describe('a stolen code or refresh token, presented by the wrong client or without its verifier', () => {
      it('a wrong code_verifier or redirect_uri is refused with invalid_grant without using the code up: the right ones still redeem it', async () => {
        const { clientId, code, verifier } = await codeFor(connector, newSubject());
        for (const form of [
          codeForm(clientId, code, 'x'.repeat(43)),
          codeForm(clientId, code, 'short'),
          codeForm(clientId, code, verifier, 'http://localhost:9/other'),
        ]) {
          const res = await tokenRequest(connector.baseUrl, form);
          expect(res.status).to.equal(400);
          expect(res.body).to.include({ error: 'invalid_grant' });
        }
        const own = await tokenRequest(connector.baseUrl, codeForm(clientId, code, verifier));
        expect(own.status, JSON.stringify(own.body)).to.equal(200);
        expect((await me(own.body.access_token)).status).to.equal(200);
      });

      it('a code presented by another client is refused with invalid_grant, is not used up, and its own client still redeems it', async () => {
        const { clientId, code, verifier } = await codeFor(connector, newSubject());
        const thief = await registerClient(connector.baseUrl);
        const stolen = await tokenRequest(connector.baseUrl, codeForm(thief, code, verifier));
        expect(stolen.status).to.equal(400);
        expect(stolen.body.error).to.equal('invalid_grant');
        const own = await tokenRequest(connector.baseUrl, codeForm(clientId, code, verifier));
        expect(own.status, JSON.stringify(own.body)).to.equal(200);
        expect((await me(own.body.access_token)).status).to.equal(200);
      });

      it('a refresh token presented by another client is refused with invalid_grant, revokes nothing, and still rotates for its own client', async () => {
        const { clientId, tokens } = await redeem();
        const thief = await registerClient(connector.baseUrl);
        const stolen = await tokenRequest(connector.baseUrl, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: thief,
        });
        expect(stolen.status).to.equal(400);
        expect(stolen.body.error).to.equal('invalid_grant');
        expect((await me(tokens.access_token)).status, 'the grant is still live').to.equal(200);
        const own = await tokenRequest(connector.baseUrl, {
          grant_type: 'refresh_token',
          refresh_token: tokens.refresh_token,
          client_id: clientId,
        });
        expect(own.status, JSON.stringify(own.body)).to.equal(200);
        expect((await me(own.body.access_token)).status).to.equal(200);
      });

      it('another client racing the rightful one with a stolen code: only the rightful client gets tokens, and they stay valid', async () => {
        const { clientId, code, verifier } = await codeFor(connector, newSubject());
        const thief = await registerClient(connector.baseUrl);
        const answers = await Promise.all([
          ...Array.from({ length: 6 }, () => tokenRequest(connector.baseUrl, codeForm(thief, code, verifier))),
          tokenRequest(connector.baseUrl, codeForm(clientId, code, verifier)),
        ]);
        const own = answers.pop()!;
        expect(own.status, JSON.stringify(own.body)).to.equal(200);
        expect(answers.map((answer) => answer.body.error)).to.deep.equal(Array(6).fill('invalid_grant'));
        expect((await me(own.body.access_token)).status).to.equal(200);
      });
    });

    describe('an open redirect through the errors of /oauth/authorize', () => {
      it('a dynamically registered client nobody has approved yet gets its authorize errors shown (400 JSON), never redirected to its URI', async () => {
        const landing = 'https://attacker.example/landing';
        const clientId = await registerClient(connector.baseUrl, [landing]);
        for (const overrides of [
          { response_type: 'token' },
          { code_challenge_method: 'plain', code_challenge: 'y'.repeat(43) },
          { code_challenge: 'not-a-challenge' },
          { resource: 'https://other.example.com' },
          { state: 's'.repeat(2000) },
        ] as Array<Record<string, string>>) {
          const res = await authorize(
            connector.baseUrl,
            authorizeParams(connector, clientId, { redirect_uri: landing, ...overrides }).params,
          );
          expect(res.status, JSON.stringify(overrides)).to.equal(400);
          expect(res.headers.get('location'), JSON.stringify(overrides)).to.equal(null);
          expect(((await res.json()) as any).error, JSON.stringify(overrides)).to.match(
            /^(invalid_request|unsupported_response_type|invalid_target)$/,
          );
        }
      });

      it('a denial, or an approval through another of its redirect URIs, does not let the client have its errors redirected', async () => {
        const other = 'http://localhost:9/other';
        const clientId = await registerClient(connector.baseUrl, [REDIRECT_URI, other]);
        const denied = await pendingRequestId(await authorize(connector.baseUrl, authorizeParams(connector, clientId).params));
        await answerConsent(connector, denied, { deny: true });
        const plain = { code_challenge_method: 'plain', code_challenge: 'y'.repeat(43) };
        expect((await authorize(connector.baseUrl, authorizeParams(connector, clientId, plain).params)).status, 'after a denial').to.equal(
          400,
        );
        await codeFor(connector, newSubject(), clientId);
        expect(
          (await authorize(connector.baseUrl, authorizeParams(connector, clientId, { ...plain, redirect_uri: other }).params)).status,
          'another URI',
        ).to.equal(400);
        expect(
          (await authorize(connector.baseUrl, authorizeParams(connector, clientId, plain).params)).status,
          'the approved URI',
        ).to.equal(302);
      });
    });
  });
}
