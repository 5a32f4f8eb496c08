import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { type ConnectorUnderTest, startConnector } from '../support/harness';
import { connectStoreClient, type StoreClient } from '../support/redis-fixture';
import { slowRedisHoldsProof } from '../support/slow-redis-holds';
import { type DelayingProxy, startDelayingProxy } from '../testkit/delaying-proxy';
import { startRedis, type TestRedis } from '../testkit/redis-node';

const PREFIX = 'slow-holds:';

// A Redis whose replies come late (a proxy holds them back past the command timeout): the commands run, their
// answers do not arrive in time, so submits answer 503 after their claim, or their enqueue, took effect.
describe('a slow Redis (one node, replies held past REDIS_COMMAND_TIMEOUT_MS=250, HOLD_ORPHAN_SECONDS=1)', function () {
  this.timeout(90_000);
  let redis: TestRedis;
  let proxy: DelayingProxy;
  let api: ConnectorUnderTest;
  let store: StoreClient;

  before(async () => {
    redis = await startRedis();
    proxy = await startDelayingProxy({ targetPort: redis.port });
    store = await connectStoreClient(redis.url, PREFIX);
    api = await startConnector(
      'redis',
      {
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_KEY_PREFIX: PREFIX,
        REDIS_COMMAND_TIMEOUT_MS: '250',
        BILLING_MODE: 'prepaid',
        HOLD_ORPHAN_SECONDS: '1',
      },
      { runWorker: false },
    );
  });
  after(async () => {
    await api?.close();
    await store?.close();
    await proxy?.close();
    await redis?.stop();
  });

  it('after the deadline every held credit is a non-final job, retries find the enqueued job or submit afresh, and the ledger reconciles', async () => {
    await slowRedisHoldsProof(
      {
        api,
        delay: (ms) => proxy.delay(ms),
        heldReplies: () => proxy.held,
        startWorker: () =>
          startConnector('redis', {
            REDIS_URL: connectionUrl(api.config.redis)!.replace(String(proxy.port), String(redis.port)),
            REDIS_KEY_PREFIX: PREFIX,
            BILLING_MODE: 'prepaid',
            HOLD_ORPHAN_SECONDS: '1',
          }),
        indexedHolds: () => store.client.zcard(store.keys.openHolds),
        orphanSeconds: 1,
      },
      'one node',
    );
  });
});
