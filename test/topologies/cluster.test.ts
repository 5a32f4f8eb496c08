import { expect } from 'chai';
import { RedisKeys } from '../../shared/adapters/redis/redis-keys';
import { clusterVars, type Deployment, deploymentEnv, startDeployment } from '../support/deployment';
import { redisCommand, startRedisCluster, type TestRedisCluster } from '../testkit/redis-topologies';
import { commonFlows } from './support/common-flows';
import { failoverFlow } from './support/failover-flow';
import { queueEventsKey, recordedCompletions } from './support/queue-events';

const PREFIX = 'topo-cluster:';
/** The job queue's first shard as named on a cluster (`{jobs}`): every one of its keys lives in this tag's slot. */
const QUEUE_TAG = new RedisKeys(PREFIX, true).jobQueueName(0);

describe('built API and worker processes on a 6-node Redis Cluster (ACL user, REDIS_MIN_REPLICAS=1)', function () {
  this.timeout(60_000);
  let cluster: TestRedisCluster;
  let deployment: Deployment;
  let killedPort: number | undefined;

  before(async () => {
    cluster = await startRedisCluster({ username: 'connector', password: 'cluster-test-password' });
    deployment = await startDeployment(deploymentEnv(clusterVars(cluster), PREFIX, { REDIS_MIN_REPLICAS: '1' }));
  });
  after(async () => {
    await deployment?.stop();
    await cluster?.stop();
  });

  commonFlows(() => deployment);

  failoverFlow(
    'the primary holding the job queue’s slot',
    () => deployment,
    () => ({
      kill: async () => {
        const owner = await cluster.primaryForKey(QUEUE_TAG);
        const slot = Number(await redisCommand(owner.port, cluster.access, ['CLUSTER', 'KEYSLOT', QUEUE_TAG]));
        expect(
          Number(await redisCommand(owner.port, cluster.access, ['CLUSTER', 'COUNTKEYSINSLOT', slot])),
          'queue keys on the victim',
        ).to.be.greaterThan(0);
        killedPort = owner.port;
        return { port: owner.port, killedAt: await cluster.killNode(owner.port) };
      },
      waitForPromotion: () => cluster.waitForPromotion(killedPort!),
      restore: () => cluster.restartNode(killedPort!),
      recordedCompletions: async () =>
        recordedCompletions((await cluster.primaryForKey(QUEUE_TAG)).port, cluster.access, queueEventsKey(PREFIX, true)),
    }),
  );
});
