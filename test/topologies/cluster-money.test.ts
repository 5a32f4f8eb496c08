import { randomBytes } from 'node:crypto';
import { clusterVars } from '../support/deployment';
import { startConnector } from '../support/harness';
import { moneyFlows } from '../support/money-flows';
import { prepaidProof } from '../support/money-proofs';
import { startRedisCluster, type TestRedisCluster } from '../testkit/redis-topologies';

// The holds, captures, releases and cancel charges of test/http/money.test.ts on a 6-node cluster (3
// primaries): the claim holds in the subject's slot, and the worker's settlement ends the hold there.
describe('paid jobs’ money on a 6-node Redis Cluster (ACL user)', function () {
  this.timeout(120_000);
  let cluster: TestRedisCluster;

  before(async () => {
    cluster = await startRedisCluster({ username: 'connector', password: 'cluster-test-password' });
  });
  after(async () => cluster?.stop());

  const clusterEnv = () => ({
    ...clusterVars(cluster),
    REDIS_KEY_PREFIX: `money-${randomBytes(3).toString('hex')}:`,
    REDIS_COMMAND_TIMEOUT_MS: '1000',
  });
  moneyFlows('cluster', (env, options) => startConnector('redis', { ...clusterEnv(), ...env }, options));
  prepaidProof('cluster', async (env) => {
    const shared = { ...clusterEnv(), ...env };
    const first = await startConnector('redis', shared);
    try {
      return [first, await startConnector('redis', shared)];
    } catch (error) {
      await first.close();
      throw error;
    }
  });
});
