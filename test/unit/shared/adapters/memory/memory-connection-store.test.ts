import { expect } from 'chai';
import { MemoryConnectionStore } from '../../../../../shared/adapters/memory/memory-connection-store';
import { liveConnection } from '../../../../support/connection-fixture';

const past = () => Math.floor(Date.now() / 1000) - 10;

describe('MemoryConnectionStore', () => {
  it('get: a copy of what was created, so changing it does not change the store', async () => {
    const store = new MemoryConnectionStore();
    await store.create(liveConnection('c1', 'user-1', { client: { id: 'cl', name: 'App' } }));
    const got = await store.get('c1');
    got!.revoked = true;
    got!.client!.name = 'Changed';
    expect(await store.get('c1')).to.deep.include({ revoked: false, client: { id: 'cl', name: 'App' } });
    expect(await store.get('missing')).to.equal(undefined);
  });

  it('revoke: 1 the first time, 0 for a revoked or unknown connection', async () => {
    const store = new MemoryConnectionStore();
    await store.create(liveConnection('c1'));
    expect([await store.revoke('c1'), await store.revoke('c1'), await store.revoke('nope')]).to.deep.equal([1, 0, 0]);
    expect((await store.get('c1'))?.revoked).to.equal(true);
  });

  it("revokeSubject: revokes that subject's live connections only, counting them", async () => {
    const store = new MemoryConnectionStore();
    for (const connection of [liveConnection('a1'), liveConnection('a2', 'user-1', { revoked: true }), liveConnection('b1', 'user-2')])
      await store.create(connection);
    expect(await store.revokeSubject('user-1')).to.equal(1);
    expect((await store.get('b1'))?.revoked).to.equal(false);
  });

  it('liveIds: neither revoked nor expired; list: every unexpired one, revoked included', async () => {
    const store = new MemoryConnectionStore();
    await store.create(liveConnection('live'));
    await store.create(liveConnection('revoked', 'user-1', { revoked: true }));
    await store.create(liveConnection('expired', 'user-1', { expiresAt: past() }));
    expect(await store.liveIds('user-1')).to.deep.equal(['live']);
    expect((await store.list('user-1')).map((c) => c.id).sort()).to.deep.equal(['live', 'revoked']);
  });

  it('create: drops connections already expired, so the map does not grow without bound', async () => {
    const store = new MemoryConnectionStore();
    await store.create(liveConnection('old', 'user-1', { expiresAt: past() }));
    await store.create(liveConnection('new'));
    expect(await store.get('old')).to.equal(undefined);
  });

  it('touch: records the first use, then only a use at least a minute after the stored one; unknown ids ignored', async () => {
    const store = new MemoryConnectionStore();
    await store.create(liveConnection('c1'));
    await store.touch('c1', 1000);
    await store.touch('c1', 1059);
    expect((await store.get('c1'))?.lastUsedAt).to.equal(1000);
    await store.touch('c1', 1060);
    expect((await store.get('c1'))?.lastUsedAt).to.equal(1060);
    await store.touch('missing', 2000);
    expect(await store.get('missing')).to.equal(undefined);
  });
});
