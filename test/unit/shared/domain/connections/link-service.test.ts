import { expect } from 'chai';
import { MemoryConnectionStore } from '../../../../../shared/adapters/memory/memory-connection-store';
import { LinkService } from '../../../../../shared/domain/connections/link-service';
import { TokenService } from '../../../../../shared/domain/connections/token-service';
import { KeyRing } from '../../../../../shared/platform/secrets/key-ring';

const ISSUER = 'https://connector.example.com';
const REVOKE_URL = 'https://dashboard.example.com/connections';

/** A link service on memory stores, counting what its hooks are told. */
function linkService() {
  const connections = new MemoryConnectionStore();
  const tokens = new TokenService({ keys: KeyRing.fromSecrets('unit-link-secret-0123456789abcdef0123'), issuer: ISSUER, connections });
  const told = { issued: 0, revoked: [] as number[] };
  const links = new LinkService({
    connections,
    tokens,
    tokenTtlSeconds: 3600,
    revokeUrl: REVOKE_URL,
    hooks: { onIssued: () => told.issued++, onRevoked: (count) => told.revoked.push(count) },
  });
  return { connections, tokens, links, told };
}

describe('linking subjects (LinkService)', () => {
  it('a link stores a connection for the normalised subject and answers a token for it that verifies, expiring after the TTL', async () => {
    const { links, tokens, connections, told } = linkService();
    const before = Math.floor(Date.now() / 1000);
    const linked = await links.link('  person-1 ');
    expect(linked).to.deep.include({ token_type: 'Bearer', subject: 'person-1', revoke_url: REVOKE_URL });
    const principal = await tokens.verify(linked.token);
    expect(principal).to.deep.include({ subject: 'person-1', connectionId: linked.connection_id });
    const stored = (await connections.get(linked.connection_id))!;
    expect(stored.expiresAt - stored.issuedAt).to.equal(3600);
    expect(stored.issuedAt).to.be.at.least(before);
    expect(linked.expires_at).to.equal(new Date(stored.expiresAt * 1000).toISOString());
    expect(told.issued).to.equal(1);
  });

  it("lists a subject's connections newest first, revoked ones only when asked", async () => {
    const { links } = linkService();
    const first = await links.link('p');
    const second = await links.link('p');
    await links.link('q');
    await links.revoke({ connection_id: first.connection_id });
    const live = await links.list('p', { includeRevoked: false, limit: 10 });
    expect(live.items.map((view) => view.connection_id)).to.deep.equal([second.connection_id]);
    const all = await links.list(' p', { includeRevoked: true, limit: 10 });
    expect(all.items.map((view) => view.connection_id).sort()).to.deep.equal([first.connection_id, second.connection_id].sort());
  });

  it('revokes one connection or all of a subject, telling the hook only of newly revoked ones', async () => {
    const { links, told } = linkService();
    const one = await links.link('p');
    await links.link('p');
    await links.link('p');
    expect(await links.revoke({ connection_id: one.connection_id })).to.equal(1);
    expect(await links.revoke({ connection_id: one.connection_id }), 'again').to.equal(0);
    expect(await links.revoke({ subject: 'p' })).to.equal(2);
    expect(await links.revoke({ subject: 'p' }), 'again').to.equal(0);
    expect(told.revoked).to.deep.equal([1, 2]);
  });

  it("a payer's link reuses its newest plain connection while half its lifetime is left, and makes a new one nearer expiry", async () => {
    const { links, connections, told } = linkService();
    const now = Math.floor(Date.now() / 1000);
    const payer = 'x402:eip155:84532:0xabc';
    await connections.create({ id: 'conn_late', subject: payer, issuedAt: now - 1801, expiresAt: now + 1799, revoked: false });
    const fresh = await links.payerLink(payer);
    expect(fresh.connection_id, 'less than half left: a new one').not.to.equal('conn_late');
    expect(told.issued).to.equal(1);
    const again = await links.payerLink(payer);
    expect(again).to.deep.equal(fresh);
    expect(told.issued, 'nothing new issued').to.equal(1);
    const client = { id: 'client-1', name: 'An app' };
    await connections.create({ id: 'conn_oauth', subject: payer, issuedAt: now + 5, expiresAt: now + 3605, revoked: false, client });
    expect((await links.payerLink(payer)).connection_id, 'never an OAuth grant').to.equal(fresh.connection_id);
  });

  it('refuses an empty subject before storing anything', async () => {
    const { links, told } = linkService();
    await links.link('   ').then(
      () => expect.fail('linked an empty subject'),
      (error: Error) => expect(error.message).to.equal('The subject is not valid.'),
    );
    expect(told.issued).to.equal(0);
  });
});
