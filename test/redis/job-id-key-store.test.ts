import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { RedisJobIdKeyStore } from '../../shared/adapters/redis/redis-job-id-key-store';
import { RedisKeys } from '../../shared/adapters/redis/redis-keys';
import { type StoreClient, twoClientStores } from '../support/redis-fixture';

/** A store on its own fresh prefix, so each test starts with no key stored. */
function storeOn(client: StoreClient, prefix: string): RedisJobIdKeyStore {
  return new RedisJobIdKeyStore(client.client, new RedisKeys(prefix), client.guard);
}

describe('RedisJobIdKeyStore (store-if-absent, then read) on a private redis-server', () => {
  const t = twoClientStores('job-id-key:', (client) => client);
  const freshPrefix = () => `jik-${randomBytes(4).toString('hex')}:`;

  it('concurrent first loads from two clients with different initial keys all answer one and the same key', async () => {
    const prefix = freshPrefix();
    const [a, b] = [storeOn(t.a, prefix), storeOn(t.b, prefix)];
    const offered = Array.from({ length: 10 }, () => randomBytes(32).toString('base64url'));
    const answers = await Promise.all(offered.map((key, i) => (i % 2 === 0 ? a : b).load(key)));
    expect(new Set(answers).size).to.equal(1);
    expect(offered).to.include(answers[0]);
  });

  it('a later load offering another key answers the first stored key, which never expires', async () => {
    const prefix = freshPrefix();
    const first = randomBytes(32).toString('base64url');
    expect(await storeOn(t.a, prefix).load(first)).to.equal(first);
    expect(await storeOn(t.b, prefix).load(randomBytes(32).toString('base64url'))).to.equal(first);
    expect(await t.a.client.ttl(`${prefix}job-id-key`)).to.equal(-1);
  });
});
