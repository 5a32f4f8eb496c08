import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { startConnector } from '../support/harness';
import { prepaidProof } from '../support/money-proofs';

// The same proof runs on the 3-primary Redis Cluster in test/topologies/cluster-money.test.ts.
prepaidProof('one node', async (env) => {
  const first = await startConnector('redis', env);
  const shared = { REDIS_URL: connectionUrl(first.config.redis)!, REDIS_KEY_PREFIX: first.config.redisKeyPrefix };
  try {
    return [first, await startConnector('redis', { ...env, ...shared })];
  } catch (error) {
    await first.close();
    throw error;
  }
});
