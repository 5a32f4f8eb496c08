import { randomBytes } from 'node:crypto';
import { cancelCrashFlows } from '../support/cancel-crash-flows';
import { cancelCrashRace, cancelCrashRaceEnv } from '../support/cancel-crash-race';
import { cancelRaceProof, twoApiCancelProof } from '../support/cancel-race-flows';
import { clusterVars, type Deployment, deploymentEnv, startDeployment } from '../support/deployment';
import { startConnector } from '../support/harness';
import { WebhookReceiver } from '../support/webhook-receiver';
import { startRedisCluster, type TestRedisCluster } from '../testkit/redis-topologies';

/** A key prefix of its own for each proof, so that no two share a queue. */
const freshPrefix = (name: string) => `${name}-${randomBytes(3).toString('hex')}:`;

// Issue 26's "exactly once" proofs, which run on memory and one Redis node in test/http/cancel-races.test.ts
// and test/worker/cancel-after-crash.test.ts, on a 6-node cluster (3 primaries) started once for the file:
// the queue's keys live in one slot and the ledger's in others, so a cancel and its refund cross nodes.
describe('cancels and refunds exactly once on a 6-node Redis Cluster (ACL user)', function () {
  this.timeout(60_000);
  let cluster: TestRedisCluster;
  const clusterEnv = (prefix: string) => ({ ...clusterVars(cluster), REDIS_KEY_PREFIX: prefix, REDIS_COMMAND_TIMEOUT_MS: '1000' });

  before(async () => {
    cluster = await startRedisCluster({ username: 'connector', password: 'cluster-test-password' });
  });
  after(async () => cluster?.stop());

  // In-process connectors (the API with its worker), as on memory and one node.
  cancelRaceProof('cluster', (env, options) => startConnector('redis', { ...clusterEnv(freshPrefix('race')), ...env }, options));
  // Both billing modes: in prepaid the flow grants exactly what the jobs cost and checks no hold is left open.
  for (const mode of ['metered', 'prepaid'] as const) {
    twoApiCancelProof(
      'cluster',
      async (env, options) => {
        const shared = { ...clusterEnv(freshPrefix(`two-apis-${mode}`)), ...env };
        const first = await startConnector('redis', shared, options);
        try {
          return [first, await startConnector('redis', shared, options)];
        } catch (error) {
          await first.close();
          throw error;
        }
      },
      mode,
    );
  }

  // Built processes (dist/).
  describe('a cancel and a worker that dies', () => {
    cancelCrashFlows((prefix) => deploymentEnv(clusterVars(cluster), prefix));
  });

  for (const mode of ['metered', 'prepaid'] as const) {
    describe(`two APIs and two workers, one of them SIGKILLed while cancels race the jobs, BILLING_MODE=${mode}`, () => {
      let receiver: WebhookReceiver;
      let deployment: Deployment;
      before(async () => {
        receiver = await WebhookReceiver.start();
        const env = { ...cancelCrashRaceEnv(receiver), BILLING_MODE: mode };
        deployment = await startDeployment(deploymentEnv(clusterVars(cluster), freshPrefix(`cancel-race-${mode}`), env));
      });
      after(async () => {
        await deployment?.stop();
        await receiver?.close();
      });

      cancelCrashRace(
        () => deployment,
        () => receiver,
        mode,
      );
    });
  }
});
