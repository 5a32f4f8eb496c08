import { expect } from 'chai';
import { MemoryOAuthStateStore } from '../../../../../shared/adapters/memory/memory-oauth-state-store';
import { ClientRegistry } from '../../../../../shared/domain/oauth/client-registry';
import { OAuthProtocolError } from '../../../../../shared/domain/oauth/oauth-protocol-error';
import { hashSecret } from '../../../../../shared/domain/oauth/opaque-secret';

const CONFIDENTIAL = {
  client_id: 'dashboard-app',
  client_name: 'Dashboard app',
  redirect_uris: ['https://dashboard.example/cb'],
  secret_sha256: hashSecret('the-confidential-secret'),
};
const REGISTRATION = { client_name: 'An app', redirect_uris: ['https://app.example/cb'] };

/** A registry on a memory store with one pre-registered client and room for `cap` registrations. */
function registry(cap = 10): ClientRegistry {
  return new ClientRegistry(new MemoryOAuthStateStore(), {
    clients: [CONFIDENTIAL],
    maxRegisteredClients: cap,
    unusedClientTtlSeconds: 3600,
  });
}

/** The OAuth error a call is refused with: its code, status and headers. */
async function refusal(call: () => unknown): Promise<Pick<OAuthProtocolError, 'error' | 'status' | 'headers'>> {
  try {
    await call();
  } catch (error) {
    expect(error).to.be.instanceOf(OAuthProtocolError);
    const { error: code, status, headers } = error as OAuthProtocolError;
    return { error: code, status, headers };
  }
  return expect.fail('the call was not refused');
}

describe('the OAuth client registry (ClientRegistry)', () => {
  it('finds a pre-registered client with its secret digest, and refuses an unknown, empty or overlong id as invalid_client', async () => {
    const clients = registry();
    expect(await clients.find('dashboard-app')).to.deep.equal({
      clientId: 'dashboard-app',
      clientName: 'Dashboard app',
      redirectUris: ['https://dashboard.example/cb'],
      secretSha256: CONFIDENTIAL.secret_sha256,
    });
    for (const id of ['dcr_unknown', '', 'x'.repeat(513), 42])
      expect((await refusal(() => clients.find(id))).error, String(id).slice(0, 20)).to.equal('invalid_client');
  });

  it('registers a public client under a new dcr_ id that it then finds, without a secret; a confidential one is refused', async () => {
    const clients = registry();
    const registered = await clients.register(REGISTRATION);
    expect(registered).to.deep.include({ ...REGISTRATION, token_endpoint_auth_method: 'none', response_types: ['code'] });
    expect(registered.client_id).to.match(/^dcr_/);
    expect(await clients.find(registered.client_id)).to.deep.equal({
      clientId: registered.client_id,
      clientName: 'An app',
      redirectUris: ['https://app.example/cb'],
      secretSha256: undefined,
    });
    expect((await refusal(() => clients.register({ ...REGISTRATION, token_endpoint_auth_method: 'client_secret_basic' }))).error).to.equal(
      'invalid_client_metadata',
    );
  });

  it('at the cap, an approved registration is kept and a new one answered 503; an unapproved one makes room', async () => {
    const clients = registry(1);
    const first = await clients.register(REGISTRATION);
    const second = await clients.register(REGISTRATION);
    expect((await refusal(() => clients.find(first.client_id))).error, 'the first made room').to.equal('invalid_client');
    expect(await clients.recordApproval(second.client_id as string, Math.floor(Date.now() / 1000) + 3600)).to.equal(true);
    expect((await clients.find(second.client_id)).approvedAt).to.be.a('number');
    expect(await refusal(() => clients.register(REGISTRATION))).to.deep.include({ error: 'temporarily_unavailable', status: 503 });
  });

  it('records an approval of a pre-registered client as kept, and of a registration that is gone as lost', async () => {
    const clients = registry();
    expect(await clients.recordApproval('dashboard-app', 0)).to.equal(true);
    expect(await clients.recordApproval('dcr_gone', Math.floor(Date.now() / 1000) + 60)).to.equal(false);
  });

  it('authenticates a confidential client by its secret and a public one by none, with a Basic challenge when Basic was used', async () => {
    const clients = registry();
    const confidential = await clients.find('dashboard-app');
    const registered = await clients.find((await clients.register(REGISTRATION)).client_id);
    expect(() => clients.authenticate(confidential, 'the-confidential-secret', true)).not.to.throw();
    expect(() => clients.authenticate(registered, undefined, false)).not.to.throw();
    expect(await refusal(() => clients.authenticate(confidential, 'wrong', true))).to.deep.equal({
      error: 'invalid_client',
      status: 401,
      headers: { 'WWW-Authenticate': 'Basic realm="connector"' },
    });
    expect(await refusal(() => clients.authenticate(confidential, undefined, false))).to.deep.equal({
      error: 'invalid_client',
      status: 401,
      headers: {},
    });
    expect((await refusal(() => clients.authenticate(registered, 'a secret', false))).error).to.equal('invalid_client');
  });
});
