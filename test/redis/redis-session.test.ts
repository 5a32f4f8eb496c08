import { expect } from 'chai';
import IORedis, { type Redis } from 'ioredis';
import { closeRedisClient } from '../../shared/adapters/redis/redis-client';
import { openRedisSession, type RedisPurpose } from '../../shared/adapters/redis/redis-session';
import { singleNodeConnection } from '../../shared/platform/config/redis-settings';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { quietLogger } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

describe("openRedisSession: the one factory of every process's Redis clients", () => {
  let redis: TestRedis;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => redis?.stop());

  const cases: ReadonlyArray<{ purpose: RedisPurpose; failFast: boolean }> = [
    { purpose: 'api', failFast: true },
    { purpose: 'worker', failFast: false },
    { purpose: 'webhooks', failFast: false },
  ];
  for (const { purpose, failFast } of cases) {
    it(`a ${purpose} session names its client "<prefix>${purpose}", ${failFast ? 'fails fast while Redis is away' : 'waits for Redis, as BullMQ needs'}, and keys under the prefix`, async () => {
      const config = { redis: singleNodeConnection(redis.url), redisKeyPrefix: 'sess:', redisCommandTimeoutMs: 700 };
      const session = openRedisSession(config, purpose, quietLogger, new Metrics({ defaultMetrics: false }));
      try {
        await waitFor(() => session.client.status === 'ready', { what: 'the session client to be ready' });
        const client = session.client as Redis;
        expect(await client.client('GETNAME')).to.equal(`sess:${purpose}`);
        expect(client.options.enableOfflineQueue).to.equal(!failFast);
        expect(client.options.maxRetriesPerRequest).to.equal(failFast ? 1 : null);
        expect(session.keys.prefix).to.equal('sess:');
        // The guard's deadline sits 500 ms above the command timeout: work that never settles is cut there.
        const started = Date.now();
        const outcome = await session.guard
          .run(() => new Promise(() => undefined))
          .then(
            () => 'settled',
            () => 'rejected',
          );
        expect(outcome).to.equal('rejected');
        expect(Date.now() - started).to.be.at.least(1100);
      } finally {
        await closeRedisClient(session.client);
      }
    });
  }

  it('an api session bounds its commands with one timer, not one each: 200 commands held by a paused Redis add at most one, and all time out', async () => {
    const config = { redis: singleNodeConnection(redis.url), redisKeyPrefix: 'held:', redisCommandTimeoutMs: 300 };
    const session = openRedisSession(config, 'api', quietLogger, new Metrics({ defaultMetrics: false }));
    const pauser = new IORedis(redis.url);
    try {
      await waitFor(() => session.client.status === 'ready', { what: 'the session client to be ready' });
      expect((session.client as Redis).options.commandTimeout).to.equal(undefined);
      // Every client's commands wait until the pause ends, well after the command timeout.
      await pauser.client('PAUSE', 1000, 'ALL');
      const before = timeouts();
      const outcomes = Array.from({ length: 200 }, (_, i) =>
        session.client.get(`held:${i}`).then(
          () => 'answered',
          (error: Error) => error.message,
        ),
      );
      expect(timeouts() - before).to.be.at.most(1);
      expect(new Set(await Promise.all(outcomes))).to.deep.equal(new Set(['Command timed out']));
    } finally {
      await pauser.client('UNPAUSE');
      pauser.disconnect();
      await closeRedisClient(session.client);
    }
  });
});

/** Node timers alive in this process. */
function timeouts(): number {
  return process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
}
