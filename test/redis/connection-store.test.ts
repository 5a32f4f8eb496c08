import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { RedisConnectionStore } from '../../shared/adapters/redis/redis-connection-store';
import type { Connection } from '../../shared/domain/connections/connection-store';
import { monitorCommands, twoClientStores } from '../support/redis-fixture';
import { waitFor } from '../testkit/wait-for';

function connection(subject: string, lifetimeSeconds = 3600): Connection {
  const now = Math.floor(Date.now() / 1000);
  return { id: `conn_${randomBytes(16).toString('base64url')}`, subject, issuedAt: now, expiresAt: now + lifetimeSeconds, revoked: false };
}

describe('RedisConnectionStore on a private redis-server', () => {
  const t = twoClientStores('conns:', (client) => new RedisConnectionStore(client.client, client.keys, client.guard));

  it('a created connection reads back identically through another client; an unknown id reads undefined', async () => {
    const created = connection('alice@example.com');
    await t.storeA.create(created);
    expect(await t.storeB.get(created.id)).to.deep.equal(created);
    expect(await t.storeB.get('conn_unknown')).to.equal(undefined);
  });

  it('a connection key expires when its token does', async () => {
    const created = connection('ttl@example.com', 600);
    await t.storeA.create(created);
    const ttl = await t.a.client.ttl(t.a.keys.connection(created.id));
    expect(ttl).to.be.within(590, 600);
    expect(await t.a.client.ttl(t.a.keys.subjectConnections('ttl@example.com'))).to.be.within(590, 600);
  });

  it('a revocation through one client is seen by the next read through another', async () => {
    const created = connection('bob@example.com');
    await t.storeA.create(created);
    expect(await t.storeA.revoke(created.id)).to.equal(1);
    expect((await t.storeB.get(created.id))?.revoked).to.equal(true);
  });

  it('concurrent revocations of one connection count it once; unknown ids count zero', async () => {
    const created = connection('carol@example.com');
    await t.storeA.create(created);
    const counts = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? t.storeA : t.storeB).revoke(created.id)));
    expect(counts.reduce((sum, n) => sum + n, 0)).to.equal(1);
    expect(await t.storeA.revoke('conn_unknown')).to.equal(0);
  });

  it('revokeSubject revokes every live connection of that subject only, and a second call revokes none', async () => {
    const mine = [connection('dave@example.com'), connection('dave@example.com'), connection('dave@example.com')];
    const other = connection('erin@example.com');
    for (const c of [...mine, other]) await t.storeA.create(c);
    await t.storeA.revoke(mine[0].id);
    expect(await t.storeB.revokeSubject('dave@example.com')).to.equal(2);
    for (const c of mine) expect((await t.storeA.get(c.id))?.revoked).to.equal(true);
    expect((await t.storeA.get(other.id))?.revoked).to.equal(false);
    expect(await t.storeB.revokeSubject('dave@example.com')).to.equal(0);
  });

  it('revokeSubject drops index entries whose connection has expired and keeps the live ones', async () => {
    const live = connection('frank@example.com');
    const gone = connection('frank@example.com');
    await t.storeA.create(live);
    await t.storeA.create(gone);
    await t.a.client.del(t.a.keys.connection(gone.id));
    expect(await t.storeA.revokeSubject('frank@example.com')).to.equal(1);
    expect(await t.a.client.smembers(t.a.keys.subjectConnections('frank@example.com'))).to.deep.equal([live.id]);
  });

  it('a connection is written before its index entry, so an index entry never names a connection not yet stored', async () => {
    const created = connection('gina@example.com');
    const order: string[] = [];
    const stop = await monitorCommands(t.redis.url, (args) => {
      if (/^evalsha$|^eval$/i.test(args[0])) order.push(args[3]);
    });
    try {
      await t.storeA.create(created);
      await waitFor(() => order.length >= 2, { what: 'both scripts of the creation' });
    } finally {
      await stop();
    }
    expect(order).to.deep.equal([t.a.keys.connection(created.id), t.a.keys.subjectConnections('gina@example.com')]);
  });

  it("liveIds lists the subject's connections that are neither revoked nor expired, and drops expired ones from the index", async () => {
    const [a, b, revoked, gone] = [1, 2, 3, 4].map(() => connection('ivy@example.com'));
    for (const c of [a, b, revoked, gone, connection('hank@example.com')]) await t.storeA.create(c);
    await t.storeA.revoke(revoked.id);
    await t.a.client.del(t.a.keys.connection(gone.id));
    expect((await t.storeB.liveIds('ivy@example.com')).sort()).to.deep.equal([a.id, b.id].sort());
    expect((await t.a.client.smembers(t.a.keys.subjectConnections('ivy@example.com'))).sort()).to.deep.equal(
      [a.id, b.id, revoked.id].sort(),
    );
    expect(await t.storeB.liveIds('nobody@example.com')).to.deep.equal([]);
  });

  it('list gives every unexpired connection of the subject, revoked ones included, with client and last use, and drops expired ids from the index', async () => {
    const [plain, app, revoked, gone] = [1, 2, 3, 4].map(() => connection('jack@example.com'));
    const granted = { ...app, client: { id: 'https://app.example.com/client.json', name: 'An App' } };
    for (const c of [plain, granted, revoked, gone, connection('kim@example.com')]) await t.storeA.create(c);
    await t.storeA.revoke(revoked.id);
    await t.storeA.touch(plain.id, plain.issuedAt + 5);
    await t.a.client.del(t.a.keys.connection(gone.id));
    const listed = await t.storeB.list('jack@example.com');
    const byId = new Map(listed.map((c) => [c.id, c]));
    expect([...byId.keys()].sort()).to.deep.equal([plain.id, granted.id, revoked.id].sort());
    expect(byId.get(plain.id)).to.deep.equal({ ...plain, lastUsedAt: plain.issuedAt + 5 });
    expect(byId.get(granted.id)).to.deep.equal(granted);
    expect(byId.get(revoked.id)).to.deep.equal({ ...revoked, revoked: true });
    expect((await t.a.client.smembers(t.a.keys.subjectConnections('jack@example.com'))).sort()).to.deep.equal(
      [plain.id, granted.id, revoked.id].sort(),
    );
    expect(await t.storeB.list('nobody@example.com')).to.deep.equal([]);
  });

  it('a connection stored before uses were recorded (no last_used_at field) reads as never used; its first touch adds the field and keeps its expiry', async () => {
    const old = connection('lee@example.com');
    const key = t.a.keys.connection(old.id);
    await t.a.client.hset(key, 'subject', old.subject, 'issued_at', old.issuedAt, 'expires_at', old.expiresAt, 'revoked', '0');
    await t.a.client.expireat(key, old.expiresAt);
    await t.a.client.sadd(t.a.keys.subjectConnections(old.subject), old.id);
    expect(await t.storeB.list(old.subject)).to.deep.equal([old]);
    await t.storeB.touch(old.id, old.issuedAt + 90);
    expect((await t.storeA.get(old.id))?.lastUsedAt).to.equal(old.issuedAt + 90);
    expect(await t.a.client.ttl(key)).to.be.within(3590, 3600);
  });

  it('a last_used_at that is not a number reads as never used and is rewritten by the next use, not failing it', async () => {
    const odd = connection('nia@example.com');
    await t.storeA.create(odd);
    await t.a.client.hset(t.a.keys.connection(odd.id), 'last_used_at', 'garbage');
    expect((await t.storeB.get(odd.id))?.lastUsedAt).to.equal(undefined);
    await t.storeB.touch(odd.id, odd.issuedAt + 3);
    expect((await t.storeA.get(odd.id))?.lastUsedAt).to.equal(odd.issuedAt + 3);
  });

  it('touch writes only over a use a minute old, and never brings back a connection that is gone', async () => {
    const used = connection('mia@example.com');
    await t.storeA.create(used);
    await t.storeA.touch(used.id, used.issuedAt + 10);
    await t.storeB.touch(used.id, used.issuedAt + 69);
    expect((await t.storeA.get(used.id))?.lastUsedAt).to.equal(used.issuedAt + 10);
    await t.storeB.touch(used.id, used.issuedAt + 70);
    expect((await t.storeA.get(used.id))?.lastUsedAt).to.equal(used.issuedAt + 70);
    await t.storeA.touch('conn_gone_for_good', used.issuedAt);
    expect(await t.a.client.exists(t.a.keys.connection('conn_gone_for_good'))).to.equal(0);
  });

  it('subjects never appear in key names', async () => {
    await t.storeA.create(connection('secret.person@example.com'));
    const keys = await t.a.client.keys('conns:*');
    expect(keys.length).to.be.greaterThan(0);
    expect(keys.some((key) => key.includes('secret.person'))).to.equal(false);
  });
});
