import { expect } from 'chai';
import { MemoryOAuthStateStore } from '../../shared/adapters/memory/memory-oauth-state-store';
import { RedisKeys } from '../../shared/adapters/redis/redis-keys';
import { RedisOAuthStateStore } from '../../shared/adapters/redis/redis-oauth-state-store';
import type { ClientRegistrationLimits, OAuthStateStore } from '../../shared/domain/oauth/oauth-state-store';
import { twoClientStores } from '../support/redis-fixture';

const HOUR = 3_600_000;
const limits = (cap: number): ClientRegistrationLimits => ({ ttlSeconds: 3600, cap, keepAfterGrantSeconds: 86_400 });

/** One fresh store per case (two for Redis: two replicas on one server), so caps never see another case's clients. */
type FreshStores = () => { store: OAuthStateStore; otherReplica: OAuthStateStore };

function registersLikeTheContract(name: string, fresh: FreshStores): void {
  describe(`client registrations, ${name}`, () => {
    const live = async (store: OAuthStateStore, ids: string[]) => {
      const found: string[] = [];
      for (const id of ids) if ((await store.get('client', id)) !== undefined) found.push(id);
      return found;
    };

    it('at the cap, a never-granted client goes first, then one whose grant ended; one with a live grant never goes, and then registration is refused', async () => {
      const { store } = fresh();
      await store.registerClient('ended', 'v', limits(3));
      await store.registerClient('live', 'v', limits(3));
      await store.registerClient('unused', 'v', limits(3));
      expect(await store.recordClientGrant('ended', 'granted', Date.now() - 1000, 86_400)).to.equal(true);
      expect(await store.recordClientGrant('live', 'granted', Date.now() + HOUR, 86_400)).to.equal(true);

      expect(await store.registerClient('d', 'v', limits(3))).to.deep.equal({ registered: true, evicted: 1 });
      expect(await live(store, ['ended', 'live', 'unused', 'd'])).to.deep.equal(['ended', 'live', 'd']);
      await store.recordClientGrant('d', 'granted', Date.now() + HOUR, 86_400);
      expect(await store.registerClient('e', 'v', limits(3))).to.deep.equal({ registered: true, evicted: 1 });
      expect(await live(store, ['ended', 'live', 'd', 'e'])).to.deep.equal(['live', 'd', 'e']);
      await store.recordClientGrant('e', 'granted', Date.now() + HOUR, 86_400);
      expect(await store.registerClient('f', 'v', limits(3))).to.deep.equal({ registered: false, evicted: 0 });
      expect(await live(store, ['live', 'd', 'e', 'f'])).to.deep.equal(['live', 'd', 'e']);
      expect(await store.get('client', 'live')).to.equal('granted');
    });

    it('after the cap is lowered, one registration evicts at most ten never-granted clients and the next brings the count under it', async () => {
      const { store } = fresh();
      const ids = Array.from({ length: 15 }, (_, i) => `c${i}`);
      for (const id of ids) await store.registerClient(id, 'v', limits(100));
      expect(await store.registerClient('n1', 'v', limits(3))).to.deep.equal({ registered: true, evicted: 10 });
      expect(await live(store, ids)).to.deep.equal(ids.slice(10));
      expect(await store.registerClient('n2', 'v', limits(3))).to.deep.equal({ registered: true, evicted: 4 });
      expect(await live(store, [...ids, 'n1', 'n2'])).to.deep.equal(['c14', 'n1', 'n2']);
    });

    it('a grant recorded for a client that is gone answers false and brings nothing back', async () => {
      const { store } = fresh();
      await store.registerClient('gone', 'v', limits(1));
      await store.registerClient('next', 'v', limits(1));
      expect(await store.recordClientGrant('gone', 'granted', Date.now() + HOUR, 86_400)).to.equal(false);
      expect(await store.recordClientGrant('never-registered', 'granted', Date.now() + HOUR, 86_400)).to.equal(false);
      expect(await live(store, ['gone', 'never-registered', 'next'])).to.deep.equal(['next']);
    });

    it('clients saved with put (pre-registered confidential ones) are neither counted nor evicted', async () => {
      const { store } = fresh();
      await store.put('client', 'cc_kept', 'v', 0);
      expect(await store.registerClient('a', 'v', limits(1))).to.deep.equal({ registered: true, evicted: 0 });
      expect(await store.registerClient('b', 'v', limits(1))).to.deep.equal({ registered: true, evicted: 1 });
      expect(await live(store, ['cc_kept', 'a', 'b'])).to.deep.equal(['cc_kept', 'b']);
    });

    it('twenty registrations racing from two replicas at a cap of five all succeed and leave exactly five', async () => {
      const { store, otherReplica } = fresh();
      const ids = Array.from({ length: 20 }, (_, i) => `r${i}`);
      const outcomes = await Promise.all(ids.map((id, i) => (i % 2 ? otherReplica : store).registerClient(id, 'v', limits(5))));
      expect(outcomes.every((outcome) => outcome.registered)).to.equal(true);
      expect(await live(store, ids)).to.have.length(5);
    });
  });
}

describe('OAuth client registrations in the store', function () {
  this.timeout(30_000);
  let memory: MemoryOAuthStateStore;
  registersLikeTheContract('the memory store', () => {
    memory = new MemoryOAuthStateStore();
    return { store: memory, otherReplica: memory };
  });

  const redis = twoClientStores('reg:', (client) => client);
  let cases = 0;
  const onRedis = () => {
    const keys = new RedisKeys(`reg${++cases}:`);
    return {
      store: new RedisOAuthStateStore(redis.a.client, keys, redis.a.guard),
      otherReplica: new RedisOAuthStateStore(redis.b.client, keys, redis.b.guard),
    };
  };
  registersLikeTheContract('Redis (one script per registration)', onRedis);

  it('on Redis, a registration made before the unused and granted sets existed is never evicted: whether it holds a grant is unknown', async () => {
    const { store } = onRedis();
    const keys = new RedisKeys(`reg${cases}:`);
    // What the release before them wrote: the record and its index entry, nothing else.
    const record = keys.oauth('client', 'legacy');
    await redis.a.client.hset(record, 'v', 'legacy', 'c', '0');
    await redis.a.client.expire(record, 3600);
    await redis.a.client.zadd(keys.oauthIndex('client'), Date.now() + HOUR, record);
    expect(await store.registerClient('new', 'v', limits(1))).to.deep.equal({ registered: false, evicted: 0 });
    expect(await store.get('client', 'legacy')).to.equal('legacy');
    // Once a person approves it, it is an ordinary granted registration.
    expect(await store.recordClientGrant('legacy', 'granted', Date.now() - 1000, 86_400)).to.equal(true);
    expect(await store.registerClient('new', 'v', limits(1))).to.deep.equal({ registered: true, evicted: 1 });
  });
});
