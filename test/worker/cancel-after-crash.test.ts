import { cancelCrashFlows } from '../support/cancel-crash-flows';
import { redisEnv } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';

// The same proofs run on the 3-primary Redis Cluster in test/topologies/cluster-cancels.test.ts.
describe('a cancel and a worker that dies (built processes on one Redis node)', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => redis?.stop());

  cancelCrashFlows((prefix) => redisEnv(redis.url, prefix));
});
