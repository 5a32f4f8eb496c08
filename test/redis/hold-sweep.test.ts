import { RedisCreditStore } from '../../shared/adapters/redis/redis-credit-store';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import { holdSweepContract } from '../support/hold-sweep-contract';
import type { StoreClient } from '../support/redis-fixture';
import { twoClientStores } from '../support/redis-fixture';

const storesOf = (client: StoreClient) => ({
  ledger: new RedisLedgerStore(client.client, client.keys, client.guard),
  credits: new RedisCreditStore(client.client, client.keys, client.guard),
});

describe('orphan hold sweep (Lua release) on a private redis-server, two clients as two replicas', () => {
  const t = twoClientStores('sweep:', storesOf);
  holdSweepContract('one Redis node', () => ({
    ledgerA: t.storeA.ledger,
    ledgerB: t.storeB.ledger,
    creditsA: t.storeA.credits,
    creditsB: t.storeB.credits,
  }));
});
