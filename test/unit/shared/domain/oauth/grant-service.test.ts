import { expect } from 'chai';
import { MemoryConnectionStore } from '../../../../../shared/adapters/memory/memory-connection-store';
import { MemoryOAuthStateStore } from '../../../../../shared/adapters/memory/memory-oauth-state-store';
import { TokenService } from '../../../../../shared/domain/connections/token-service';
import { GrantService } from '../../../../../shared/domain/oauth/grant-service';
import type { OAuthClient } from '../../../../../shared/domain/oauth/known-client';
import { OAuthProtocolError } from '../../../../../shared/domain/oauth/oauth-protocol-error';
import { hashSecret } from '../../../../../shared/domain/oauth/opaque-secret';
import type { CodeGrant } from '../../../../../shared/domain/oauth/pending-request';
import { s256ChallengeOf } from '../../../../../shared/domain/oauth/pkce';
import { KeyRing } from '../../../../../shared/platform/secrets/key-ring';

const ISSUER = 'https://connector.example.com';
const APP: OAuthClient = { clientId: 'dcr_app', clientName: 'App', redirectUris: ['https://app.example/cb'] };
const OTHER: OAuthClient = { clientId: 'dcr_other', clientName: 'Other', redirectUris: ['https://other.example/cb'] };
const VERIFIER = 'v'.repeat(43);
const CODE = 'code-of-the-grant';
const FORM = { code: CODE, redirect_uri: 'https://app.example/cb', code_verifier: VERIFIER };

/** A grant service on memory stores with one OAuth connection of `p` for APP and its code, counting what its hooks hear. */
async function grantService() {
  const store = new MemoryOAuthStateStore();
  const connections = new MemoryConnectionStore();
  const tokens = new TokenService({ keys: KeyRing.fromSecrets('unit-grant-secret-0123456789abcdef01'), issuer: ISSUER, connections });
  const now = Math.floor(Date.now() / 1000);
  await connections.create({
    id: 'conn_1',
    subject: 'p',
    issuedAt: now,
    expiresAt: now + 3600,
    revoked: false,
    client: { id: APP.clientId, name: 'App' },
  });
  const grant: CodeGrant = {
    connectionId: 'conn_1',
    subject: 'p',
    clientId: APP.clientId,
    redirectUri: FORM.redirect_uri,
    codeChallenge: s256ChallengeOf(VERIFIER)!,
  };
  await store.put('code', hashSecret(CODE), JSON.stringify(grant), 600);
  const heard = { issued: 0, revoked: [] as number[] };
  const grants = new GrantService({
    store,
    connections,
    tokens,
    settings: { issuer: ISSUER, accessTokenTtlSeconds: 600 },
    hooks: { onIssued: () => heard.issued++, onRevoked: (count) => heard.revoked.push(count) },
  });
  return { grants, tokens, connections, heard };
}

/** The OAuth error code and description a call is refused with. */
async function refusal(call: Promise<unknown>): Promise<[string, string]> {
  return call.then(
    () => expect.fail('the call was granted'),
    (error: unknown) => {
      expect(error).to.be.instanceOf(OAuthProtocolError);
      return [(error as OAuthProtocolError).error, (error as OAuthProtocolError).description];
    },
  );
}

describe('OAuth grants (GrantService)', () => {
  it("redeems a code for its client, redirect URI and verifier: an access token of the grant's connection and a refresh token", async () => {
    const { grants, tokens, heard } = await grantService();
    const answer = await grants.exchangeCode(APP, FORM);
    expect(answer).to.include({ token_type: 'Bearer', expires_in: 600 });
    expect(await tokens.verify(answer.access_token)).to.deep.include({ subject: 'p', connectionId: 'conn_1' });
    const refreshed = await grants.refresh(APP, { refresh_token: answer.refresh_token, resource: ISSUER });
    expect(refreshed.refresh_token).not.to.equal(answer.refresh_token);
    expect(heard).to.deep.equal({ issued: 2, revoked: [] });
  });

  it('refuses a code presented by another client or with another verifier, and leaves it to its rightful client', async () => {
    const { grants } = await grantService();
    expect(await refusal(grants.exchangeCode(OTHER, FORM))).to.deep.equal([
      'invalid_grant',
      'the code was issued to another client, or redirect_uri or code_verifier does not match',
    ]);
    expect((await refusal(grants.exchangeCode(APP, { ...FORM, code_verifier: 'w'.repeat(43) })))[0]).to.equal('invalid_grant');
    expect(await refusal(grants.exchangeCode(APP, { ...FORM, resource: 'https://elsewhere.example' }))).to.deep.equal([
      'invalid_target',
      'resource must be this connector',
    ]);
    expect((await grants.exchangeCode(APP, FORM)).token_type).to.equal('Bearer');
  });

  it('revokes the connection when a code or a rotated refresh token is presented again', async () => {
    const { grants, connections, heard } = await grantService();
    const answer = await grants.exchangeCode(APP, FORM);
    await grants.refresh(APP, { refresh_token: answer.refresh_token });
    expect(await refusal(grants.refresh(APP, { refresh_token: answer.refresh_token }))).to.deep.equal([
      'invalid_grant',
      'the refresh token was already used; the connection is revoked',
    ]);
    expect((await connections.get('conn_1'))?.revoked).to.equal(true);
    expect(await refusal(grants.exchangeCode(APP, FORM))).to.deep.equal(['invalid_grant', 'the code was already used']);
    expect(heard.revoked, 'told once: the second revocation changed nothing').to.deep.equal([1]);
  });

  it("revokes on its own client's refresh or access token, and ignores another client's and unknown tokens", async () => {
    const { grants, connections } = await grantService();
    const answer = await grants.exchangeCode(APP, FORM);
    await grants.revokeToken(OTHER, answer.refresh_token);
    await grants.revokeToken(OTHER, answer.access_token);
    await grants.revokeToken(APP, 'not-a-token');
    expect((await connections.get('conn_1'))?.revoked).to.equal(false);
    await grants.revokeToken(APP, answer.access_token);
    expect((await connections.get('conn_1'))?.revoked).to.equal(true);
  });
});
