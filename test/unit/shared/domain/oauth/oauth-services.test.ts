import { expect } from 'chai';
import { MemoryConnectionStore } from '../../../../../shared/adapters/memory/memory-connection-store';
import { MemoryOAuthStateStore } from '../../../../../shared/adapters/memory/memory-oauth-state-store';
import { TokenService } from '../../../../../shared/domain/connections/token-service';
import { createOAuthServices, type OAuthDependencies } from '../../../../../shared/domain/oauth/oauth-services';
import { hashSecret } from '../../../../../shared/domain/oauth/opaque-secret';
import { s256ChallengeOf } from '../../../../../shared/domain/oauth/pkce';
import { KeyRing } from '../../../../../shared/platform/secrets/key-ring';

const ISSUER = 'https://connector.example.com';
const PRE = {
  client_id: 'dashboard-app',
  client_name: 'Dashboard app',
  redirect_uris: ['https://dash.example/cb'],
  secret_sha256: hashSecret('s'),
};
const CONFIG = {
  publicUrl: ISSUER,
  tokenTtlSeconds: 7200,
  oauth: {
    consentUrl: 'https://dash.example/connect',
    accessTokenTtlSeconds: 900,
    requestTtlSeconds: 600,
    codeTtlSeconds: 60,
    maxRegisteredClients: 10,
    unusedClientTtlSeconds: 3600,
    clients: [PRE],
  },
} as OAuthDependencies['config'];

describe('the authorization server built from the configuration (createOAuthServices)', () => {
  it('knows the configured clients and issues access tokens for PUBLIC_URL with the configured lifetime, telling the hooks', async () => {
    const oauth = new MemoryOAuthStateStore();
    const connections = new MemoryConnectionStore();
    const tokens = new TokenService({ keys: KeyRing.fromSecrets('unit-oauth-secret-0123456789abcdef01'), issuer: ISSUER, connections });
    let issued = 0;
    const services = createOAuthServices({ config: CONFIG, stores: { oauth, connections }, tokens, hooks: { onIssued: () => issued++ } });

    const client = await services.clients.find(PRE.client_id);
    expect(client).to.deep.include({ clientId: PRE.client_id, redirectUris: PRE.redirect_uris });

    const now = Math.floor(Date.now() / 1000);
    await connections.create({ id: 'conn_1', subject: 'p', issuedAt: now, expiresAt: now + 7200, revoked: false });
    const verifier = 'v'.repeat(43);
    const grant = {
      connectionId: 'conn_1',
      subject: 'p',
      clientId: PRE.client_id,
      redirectUri: PRE.redirect_uris[0],
      codeChallenge: s256ChallengeOf(verifier),
    };
    await oauth.put('code', hashSecret('the-code'), JSON.stringify(grant), 60);
    const answer = await services.grants.exchangeCode(client, {
      code: 'the-code',
      redirect_uri: PRE.redirect_uris[0],
      code_verifier: verifier,
      resource: ISSUER,
    });
    expect(answer.expires_in).to.equal(900);
    expect(issued).to.equal(1);
  });
});
