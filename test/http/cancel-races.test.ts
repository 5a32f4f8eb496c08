import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { BACKENDS } from '../support/backends';
import { cancelRaceProof, twoApiCancelProof } from '../support/cancel-race-flows';
import { startConnector } from '../support/harness';

// The same proofs run on the 3-primary Redis Cluster in test/topologies/cluster-cancels.test.ts.
for (const backend of BACKENDS) cancelRaceProof(backend, (env, options) => startConnector(backend, env, options));

twoApiCancelProof('redis', async (env, options) => {
  const first = await startConnector('redis', env, options);
  const shared = { REDIS_URL: connectionUrl(first.config.redis)!, REDIS_KEY_PREFIX: first.config.redisKeyPrefix };
  try {
    return [first, await startConnector('redis', { ...env, ...shared }, options)];
  } catch (error) {
    await first.close();
    throw error;
  }
});
