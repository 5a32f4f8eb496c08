import { type Deployment, deploymentEnv, sentinelVars, startDeployment } from '../support/deployment';
import { startRedisSentinelSet, type TestRedisSentinelSet } from '../testkit/redis-topologies';
import { commonFlows } from './support/common-flows';
import { failoverFlow } from './support/failover-flow';
import { queueEventsKey, recordedCompletions } from './support/queue-events';

const PREFIX = 'topo-sentinel:';

describe('built API and worker processes on a Sentinel set (ACL user, sentinel password, REDIS_MIN_REPLICAS=1)', function () {
  this.timeout(60_000);
  let set: TestRedisSentinelSet;
  let deployment: Deployment;

  before(async () => {
    set = await startRedisSentinelSet({
      username: 'connector',
      password: 'sentinel-data-password',
      sentinelPassword: 'sentinel-test-password',
    });
    deployment = await startDeployment(deploymentEnv(sentinelVars(set), PREFIX, { REDIS_MIN_REPLICAS: '1' }));
  });
  after(async () => {
    await deployment?.stop();
    await set?.stop();
  });

  commonFlows(() => deployment);

  failoverFlow(
    'the Sentinel primary',
    () => deployment,
    () => ({
      kill: () => set.killPrimary(),
      waitForPromotion: () => set.waitForPromotion(),
      restore: () => set.restartKilled(),
      recordedCompletions: async () => recordedCompletions(await set.primaryPort(), set.access, queueEventsKey(PREFIX, false)),
    }),
  );
});
