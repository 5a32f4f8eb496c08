import { startRedis, type TestRedis } from '../support/redis-server';
import { WebhookReceiver } from '../support/webhook-receiver';
import { redisEnv } from '../redis/support/processes';
import { cancelCrashRace, cancelCrashRaceEnv } from '../topologies/support/cancel-crash-race';
import { deploymentEnv, startDeployment, type Deployment } from '../topologies/support/deployment';
import { cancelCrashFlows } from './support/cancel-crash-flows';

// The same proofs run on the 3-primary Redis Cluster in test/topologies/cluster-cancels.test.ts.
describe('a cancel and a worker that dies (built processes on one Redis node)', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => redis?.stop());

  cancelCrashFlows((prefix) => redisEnv(redis.url, prefix));

  describe('two APIs and two workers, one of them SIGKILLed while cancels race the jobs', () => {
    let receiver: WebhookReceiver;
    let deployment: Deployment;
    before(async () => {
      receiver = await WebhookReceiver.start();
      deployment = await startDeployment(deploymentEnv({ REDIS_URL: redis.url }, 'cancel-race:', cancelCrashRaceEnv(receiver)));
    });
    after(async () => {
      await deployment?.stop();
      await receiver?.close();
    });

    cancelCrashRace(
      () => deployment,
      () => receiver,
    );
  });
});
