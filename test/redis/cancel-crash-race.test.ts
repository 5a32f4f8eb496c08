import { cancelCrashRace, cancelCrashRaceEnv } from '../support/cancel-crash-race';
import { type Deployment, deploymentEnv, startDeployment } from '../support/deployment';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startRedis, type TestRedis } from '../testkit/redis-node';

// The same race runs on the 3-primary Redis Cluster in test/topologies/cluster-cancels.test.ts. In prepaid
// billing (issue 36 item 7) each job's price is held at submit, and the race also proves every hold settled.
for (const mode of ['metered', 'prepaid'] as const)
  describe(`two built APIs and two built workers on one Redis node, one worker SIGKILLed while cancels race the jobs, BILLING_MODE=${mode}`, function () {
    this.timeout(60_000);
    let redis: TestRedis;
    let receiver: WebhookReceiver;
    let deployment: Deployment;
    before(async () => {
      [redis, receiver] = await Promise.all([startRedis(), WebhookReceiver.start()]);
      deployment = await startDeployment(
        deploymentEnv({ REDIS_URL: redis.url }, `cancel-race-${mode}:`, { ...cancelCrashRaceEnv(receiver), BILLING_MODE: mode }),
      );
    });
    after(async () => {
      await deployment?.stop();
      await receiver?.close();
      await redis?.stop();
    });

    cancelCrashRace(
      () => deployment,
      () => receiver,
      mode,
    );
  });
