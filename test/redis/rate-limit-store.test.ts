import { expect } from 'chai';
import { RedisRateLimitStore } from '../../shared/redis/redis-rate-limit-store';
import { startRedis, type TestRedis } from '../support/redis-server';
import { waitFor } from '../support/wait-for';
import { connectStoreClient, type StoreClient } from './support/redis-fixture';

describe('RedisRateLimitStore on a private redis-server', () => {
  let redis: TestRedis;
  let a: StoreClient;
  let b: StoreClient;
  let storeA: RedisRateLimitStore;
  let storeB: RedisRateLimitStore;

  before(async () => {
    redis = await startRedis();
    a = await connectStoreClient(redis.url, 'rl:');
    b = await connectStoreClient(redis.url, 'rl:');
    storeA = new RedisRateLimitStore(a.client, a.keys, a.guard);
    storeB = new RedisRateLimitStore(b.client, b.keys, b.guard);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await redis?.stop();
  });

  it('hits through two clients share one counter, and the window reports its reset', async () => {
    const first = await storeA.hit('sub:shared', 60);
    const second = await storeB.hit('sub:shared', 60);
    expect([first.count, second.count]).to.deep.equal([1, 2]);
    expect(second.resetInSeconds).to.be.within(59, 60);
  });

  it('100 concurrent hits count exactly 100 and the window key always has an expiry', async () => {
    const windows = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? storeA : storeB).hit('sub:burst', 60)));
    expect(windows.map((w) => w.count).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(await a.client.ttl(a.keys.rateWindow('sub:burst'))).to.be.within(1, 60);
  });

  it('a window that has expired starts again at 1', async () => {
    await storeA.hit('sub:short', 1);
    await storeA.hit('sub:short', 1);
    await waitFor(async () => (await a.client.exists(a.keys.rateWindow('sub:short'))) === 0, { what: 'the window to expire' });
    expect((await storeA.hit('sub:short', 1)).count).to.equal(1);
  });

  it('a counter left without an expiry is given one on the next hit', async () => {
    await a.client.set(a.keys.rateWindow('sub:stuck'), '5');
    const window = await storeA.hit('sub:stuck', 30);
    expect(window.count).to.equal(6);
    expect(await a.client.ttl(a.keys.rateWindow('sub:stuck'))).to.be.within(1, 30);
  });
});
