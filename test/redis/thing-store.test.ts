import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { RedisThingStore } from '../../shared/adapters/redis/redis-thing-store';
import type { Thing } from '../../shared/domain/things/thing';
import { twoClientStores } from '../support/redis-fixture';

function thing(name: string): Thing {
  return { id: `thing_${randomBytes(16).toString('base64url')}`, name, notes: null, created_at: new Date().toISOString() };
}

describe('RedisThingStore on a private redis-server', () => {
  const t = twoClientStores('things:', (client) => new RedisThingStore(client.client, client.keys, client.guard));

  it('lists a subject’s things newest first with increasing sequence numbers, whole and unchanged', async () => {
    const items = [thing('one'), { ...thing('two'), notes: 'with notes' }, thing('three')];
    for (const item of items) await t.storeA.add('list@example.com', item);
    const listed = await t.storeB.list('list@example.com', { limit: 10 });
    expect(listed.map((i) => i.value)).to.deep.equal([...items].reverse());
    expect(listed[0].seq).to.be.greaterThan(listed[1].seq);
    expect(listed[1].seq).to.be.greaterThan(listed[2].seq);
  });

  it('cursor pages stay correct while things are added between page reads', async () => {
    const subject = 'paging@example.com';
    const items = Array.from({ length: 5 }, (_, i) => thing(`t${i}`));
    for (const item of items) await t.storeA.add(subject, item);
    const page1 = await t.storeA.list(subject, { limit: 2 });
    await t.storeB.add(subject, thing('added while paging'));
    const page2 = await t.storeA.list(subject, { limit: 2, before: page1[1].seq });
    const page3 = await t.storeA.list(subject, { limit: 2, before: page2[1].seq });
    expect([...page1, ...page2, ...page3].map((i) => i.value.name)).to.deep.equal(['t4', 't3', 't2', 't1', 't0']);
  });

  it('concurrent adds from two clients all land, each with its own sequence number', async () => {
    const subject = 'concurrent@example.com';
    await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? t.storeA : t.storeB).add(subject, thing(`c${i}`))));
    const listed = await t.storeA.list(subject, { limit: 100 });
    expect(listed).to.have.length(60);
    expect(new Set(listed.map((i) => i.seq)).size).to.equal(60);
  });

  it('a subject never sees another subject’s things', async () => {
    await t.storeA.add('owner@example.com', thing('private'));
    expect(await t.storeA.list('stranger@example.com', { limit: 10 })).to.deep.equal([]);
  });
});
