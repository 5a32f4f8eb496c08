import { expect } from 'chai';
import { RedisCreditStore } from '../../shared/adapters/redis/redis-credit-store';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import { openRedisSession, type RedisSession } from '../../shared/adapters/redis/redis-session';
import { loadRedisSettings } from '../../shared/platform/config/redis-settings';
import type { ConfigProblem } from '../../shared/platform/config/settings-table';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { creditLotsContract } from '../support/credit-lots-contract';
import { type CreditStores, creditStoreContract } from '../support/credit-store-contract';
import { clusterVars } from '../support/deployment';
import { fundedClaimContract } from '../support/funded-claim-contract';
import { holdSweepContract, type SweepStores } from '../support/hold-sweep-contract';
import { quietLogger } from '../support/redis-fixture';
import { startRedisCluster, type TestRedisCluster } from '../testkit/redis-topologies';
import { waitFor } from '../testkit/wait-for';

const PREFIX = 'credits-cluster:';

// The credit store's contracts (accounts, lots, the orphan sweep, funded claims) on a 6-node cluster (3 primaries): every
// step runs in its subject's slot, the grant and void ids' claims and the indexes in their own, over two
// clients as two replicas would.
describe('credit accounts on a 6-node Redis Cluster (ACL user), two clients as two replicas', function () {
  this.timeout(60_000);
  let cluster: TestRedisCluster;
  const sessions: RedisSession[] = [];
  const stores = {} as CreditStores;
  const sweep = {} as SweepStores;

  before(async () => {
    cluster = await startRedisCluster({ username: 'connector', password: 'cluster-test-password' });
    const problems: ConfigProblem[] = [];
    const { connection } = loadRedisSettings(clusterVars(cluster), problems);
    expect(problems).to.deep.equal([]);
    for (const purpose of ['api', 'api'] as const) {
      const session = openRedisSession(
        { redis: connection!, redisKeyPrefix: PREFIX, redisCommandTimeoutMs: 2000 },
        purpose,
        quietLogger,
        new Metrics({ defaultMetrics: false }),
      );
      sessions.push(session);
      await waitFor(() => session.client.status === 'ready', { what: 'a cluster client to be ready' });
    }
    expect(sessions.every((session) => session.keys.clustered)).to.equal(true);
    stores.a = new RedisCreditStore(sessions[0].client, sessions[0].keys, sessions[0].guard);
    stores.b = new RedisCreditStore(sessions[1].client, sessions[1].keys, sessions[1].guard);
    sweep.creditsA = stores.a;
    sweep.creditsB = stores.b;
    sweep.ledgerA = new RedisLedgerStore(sessions[0].client, sessions[0].keys, sessions[0].guard);
    sweep.ledgerB = new RedisLedgerStore(sessions[1].client, sessions[1].keys, sessions[1].guard);
  });
  after(async () => {
    for (const session of sessions) session.client.disconnect();
    await cluster?.stop();
  });

  creditStoreContract('Redis Cluster', () => stores);
  creditLotsContract('Redis Cluster', () => stores);
  holdSweepContract('Redis Cluster', () => sweep);
  fundedClaimContract('Redis Cluster', () => sweep);
});
