import { RedisCreditStore } from '../../shared/adapters/redis/redis-credit-store';
import { creditLotsContract } from '../support/credit-lots-contract';
import { creditStoreContract } from '../support/credit-store-contract';
import { twoClientStores } from '../support/redis-fixture';

describe('RedisCreditStore (Lua) on a private redis-server, two clients as two replicas', () => {
  const t = twoClientStores('credits:', (client) => new RedisCreditStore(client.client, client.keys, client.guard));
  creditStoreContract('one Redis node', () => ({ a: t.storeA, b: t.storeB }));
  creditLotsContract('one Redis node', () => ({ a: t.storeA, b: t.storeB }));
});
