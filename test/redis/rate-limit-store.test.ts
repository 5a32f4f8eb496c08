import { expect } from 'chai';
import { RedisRateLimitStore } from '../../shared/adapters/redis/redis-rate-limit-store';
import { twoClientStores } from '../support/redis-fixture';
import { waitFor } from '../testkit/wait-for';

describe('RedisRateLimitStore on a private redis-server', () => {
  const t = twoClientStores('rl:', (client) => new RedisRateLimitStore(client.client, client.keys, client.guard));

  it('hits through two clients share one counter, and the window reports its reset', async () => {
    const first = await t.storeA.hit('sub:shared', 60);
    const second = await t.storeB.hit('sub:shared', 60);
    expect([first.count, second.count]).to.deep.equal([1, 2]);
    expect(second.resetInSeconds).to.be.within(59, 60);
  });

  it('100 concurrent hits count exactly 100 and the window key always has an expiry', async () => {
    const windows = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? t.storeA : t.storeB).hit('sub:burst', 60)));
    expect(windows.map((w) => w.count).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(await t.a.client.ttl(t.a.keys.rateWindow('sub:burst'))).to.be.within(1, 60);
  });

  it('a window that has expired starts again at 1', async () => {
    await t.storeA.hit('sub:short', 1);
    await t.storeA.hit('sub:short', 1);
    await waitFor(async () => (await t.a.client.exists(t.a.keys.rateWindow('sub:short'))) === 0, { what: 'the window to expire' });
    expect((await t.storeA.hit('sub:short', 1)).count).to.equal(1);
  });

  it('a counter left without an expiry is given one on the next hit', async () => {
    await t.a.client.set(t.a.keys.rateWindow('sub:stuck'), '5');
    const window = await t.storeA.hit('sub:stuck', 30);
    expect(window.count).to.equal(6);
    expect(await t.a.client.ttl(t.a.keys.rateWindow('sub:stuck'))).to.be.within(1, 30);
  });
});
