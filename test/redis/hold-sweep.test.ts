import { RedisCreditStore } from '../../shared/adapters/redis/redis-credit-store';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import { fundedClaimContract } from '../support/funded-claim-contract';
import { holdSweepContract, type SweepStores } from '../support/hold-sweep-contract';
import type { StoreClient } from '../support/redis-fixture';
import { twoClientStores } from '../support/redis-fixture';

const storesOf = (client: StoreClient) => ({
  ledger: new RedisLedgerStore(client.client, client.keys, client.guard),
  credits: new RedisCreditStore(client.client, client.keys, client.guard),
});

describe('orphan hold sweep (Lua release) and funded claims on a private redis-server, two clients as two replicas', () => {
  const t = twoClientStores('sweep:', storesOf);
  const stores = (): SweepStores => ({
    ledgerA: t.storeA.ledger,
    ledgerB: t.storeB.ledger,
    creditsA: t.storeA.credits,
    creditsB: t.storeB.credits,
  });
  holdSweepContract('one Redis node', stores);
  fundedClaimContract('one Redis node', stores);
});
