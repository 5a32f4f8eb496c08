import { expect } from 'chai';
import { openRedisSession, type RedisSession } from '../../shared/adapters/redis/redis-session';
import { loadRedisSettings } from '../../shared/platform/config/redis-settings';
import type { ConfigProblem } from '../../shared/platform/config/settings-table';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { type ConnectorUnderTest, startConnector } from '../support/harness';
import { quietLogger } from '../support/redis-fixture';
import { slowRedisHoldsProof } from '../support/slow-redis-holds';
import { type DelayingProxy, startDelayingProxy } from '../testkit/delaying-proxy';
import { redisCommand, startRedisCluster, type TestRedisCluster } from '../testkit/redis-topologies';
import { waitFor } from '../testkit/wait-for';

const PREFIX = 'slow-holds-cluster:';

/** The ports every node's `CLUSTER SLOTS` names, as a client discovering the cluster would see them. */
async function announcedPorts(cluster: TestRedisCluster, port: number): Promise<Set<number>> {
  const slots = (await redisCommand(port, cluster.access, ['CLUSTER', 'SLOTS'])) as Array<Array<unknown>>;
  return new Set(slots.flatMap((range) => (range.slice(2) as Array<[string, number]>).map(([, announced]) => announced)));
}

/**
 * Puts a delaying proxy in front of every node and has each node announce its proxy's port
 * (`cluster-announce-port`; the cluster bus keeps its own port), so a client that discovers the cluster
 * reaches every node, primaries and replicas, only through the proxies. Test-only: nothing in the product changes.
 */
async function routeThroughProxies(cluster: TestRedisCluster): Promise<DelayingProxy[]> {
  const proxies = await Promise.all(cluster.ports.map((port) => startDelayingProxy({ targetPort: port })));
  for (const [index, port] of cluster.ports.entries()) {
    await redisCommand(port, cluster.access, ['CONFIG', 'SET', 'cluster-announce-port', proxies[index].port]);
  }
  const wanted = new Set(proxies.map((proxy) => proxy.port));
  await waitFor(
    async () => {
      for (const port of cluster.ports) {
        const announced = await announcedPorts(cluster, port);
        if (announced.size !== wanted.size || ![...announced].every((p) => wanted.has(p))) return false;
      }
      return true;
    },
    { timeoutMs: 15_000, intervalMs: 100, what: 'every node to announce the proxies' },
  );
  return proxies;
}

// The slow-Redis proof on a 6-node Cluster: every node's replies held back past the command timeout, so the
// claim (the subject's slot) or the enqueue (the shard's slot, often another primary) answers late.
describe('a slow Redis Cluster (every node behind a delaying proxy, REDIS_COMMAND_TIMEOUT_MS=250, HOLD_ORPHAN_SECONDS=1)', function () {
  this.timeout(120_000);
  let cluster: TestRedisCluster;
  let proxies: DelayingProxy[] = [];
  let api: ConnectorUnderTest;
  let session: RedisSession;

  before(async () => {
    cluster = await startRedisCluster();
    proxies = await routeThroughProxies(cluster);
    const seeds = proxies.map((proxy) => `127.0.0.1:${proxy.port}`).join(',');
    const env = { REDIS_CLUSTER_NODES: seeds, REDIS_KEY_PREFIX: PREFIX, BILLING_MODE: 'prepaid', HOLD_ORPHAN_SECONDS: '1' };
    api = await startConnector('redis', { ...env, REDIS_COMMAND_TIMEOUT_MS: '250' }, { runWorker: false });
    const problems: ConfigProblem[] = [];
    const { connection } = loadRedisSettings({ REDIS_CLUSTER_NODES: cluster.seeds }, problems);
    expect(problems).to.deep.equal([]);
    session = openRedisSession(
      { redis: connection!, redisKeyPrefix: PREFIX, redisCommandTimeoutMs: 2000 },
      'api',
      quietLogger,
      new Metrics({ defaultMetrics: false }),
    );
    await waitFor(() => session.client.status === 'ready', { what: 'the cluster client to be ready' });
  });
  after(async () => {
    await api?.close();
    session?.client.disconnect();
    for (const proxy of proxies) await proxy.close();
    await cluster?.stop();
  });

  it('after the deadline every held credit is a non-final job, retries find the enqueued job or submit afresh, and the ledger reconciles', async () => {
    const reached = proxies.filter((proxy) => proxy.connections > 0).length;
    expect(reached, 'the API reached at least the three primaries through their proxies').to.be.at.least(3);
    await slowRedisHoldsProof(
      {
        api,
        delay: (ms) => {
          for (const proxy of proxies) proxy.delay(ms);
        },
        heldReplies: () => proxies.reduce((sum, proxy) => sum + proxy.held, 0),
        startWorker: () =>
          startConnector('redis', {
            REDIS_CLUSTER_NODES: cluster.seeds,
            REDIS_KEY_PREFIX: PREFIX,
            BILLING_MODE: 'prepaid',
            HOLD_ORPHAN_SECONDS: '1',
          }),
        indexedHolds: () => session.client.zcard(session.keys.openHolds),
        orphanSeconds: 1,
      },
      'cluster',
    );
  });
});
