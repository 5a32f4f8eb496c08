import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { RedisThingStore } from '../../shared/redis/redis-thing-store';
import type { Thing } from '../../shared/things/thing';
import { startRedis, type TestRedis } from '../support/redis-server';
import { connectStoreClient, type StoreClient } from './support/redis-fixture';

function thing(name: string): Thing {
  return { id: `thing_${randomBytes(16).toString('base64url')}`, name, notes: null, created_at: new Date().toISOString() };
}

describe('RedisThingStore on a private redis-server', () => {
  let redis: TestRedis;
  let a: StoreClient;
  let b: StoreClient;
  let storeA: RedisThingStore;
  let storeB: RedisThingStore;

  before(async () => {
    redis = await startRedis();
    a = await connectStoreClient(redis.url, 'things:');
    b = await connectStoreClient(redis.url, 'things:');
    storeA = new RedisThingStore(a.client, a.keys, a.guard);
    storeB = new RedisThingStore(b.client, b.keys, b.guard);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('lists a subject’s things newest first with increasing sequence numbers, whole and unchanged', async () => {
    const items = [thing('one'), { ...thing('two'), notes: 'with notes' }, thing('three')];
    for (const item of items) await storeA.add('list@example.com', item);
    const listed = await storeB.list('list@example.com', { limit: 10 });
    expect(listed.map((i) => i.value)).to.deep.equal([...items].reverse());
    expect(listed[0].seq).to.be.greaterThan(listed[1].seq);
    expect(listed[1].seq).to.be.greaterThan(listed[2].seq);
  });

  it('cursor pages stay correct while things are added between page reads', async () => {
    const subject = 'paging@example.com';
    const items = Array.from({ length: 5 }, (_, i) => thing(`t${i}`));
    for (const item of items) await storeA.add(subject, item);
    const page1 = await storeA.list(subject, { limit: 2 });
    await storeB.add(subject, thing('added while paging'));
    const page2 = await storeA.list(subject, { limit: 2, before: page1[1].seq });
    const page3 = await storeA.list(subject, { limit: 2, before: page2[1].seq });
    expect([...page1, ...page2, ...page3].map((i) => i.value.name)).to.deep.equal(['t4', 't3', 't2', 't1', 't0']);
  });

  it('concurrent adds from two clients all land, each with its own sequence number', async () => {
    const subject = 'concurrent@example.com';
    await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? storeA : storeB).add(subject, thing(`c${i}`))));
    const listed = await storeA.list(subject, { limit: 100 });
    expect(listed).to.have.length(60);
    expect(new Set(listed.map((i) => i.seq)).size).to.equal(60);
  });

  it('a subject never sees another subject’s things', async () => {
    await storeA.add('owner@example.com', thing('private'));
    expect(await storeA.list('stranger@example.com', { limit: 10 })).to.deep.equal([]);
  });
});
