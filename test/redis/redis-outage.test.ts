import { expect } from 'chai';
import Redis from 'ioredis';
import { createRedisBackend } from '../../shared/adapters/redis-backend';
import type { Backend } from '../../shared/domain/backend';
import { newEvent } from '../../shared/domain/webhooks/webhook-event';
import { singleNodeConnection } from '../../shared/platform/config/redis-settings';
import { ServiceUnavailableError } from '../../shared/platform/errors/problems';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { measurement } from '../support/measurement';
import { metricValue, quietLogger } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const COMMAND_TIMEOUT_MS = 500;
/** The bound a caller waits at most: the command timeout plus the guard's margin, plus slack for a busy CI. */
const BOUND_MS = COMMAND_TIMEOUT_MS + 500 + 250;

function config(url: string) {
  return {
    redis: singleNodeConnection(url),
    jobQueueShards: 1,
    redisMinReplicas: 0,
    redisWaitMs: 500,
    redisKeyPrefix: 'outage:',
    redisCommandTimeoutMs: COMMAND_TIMEOUT_MS,
    jobAttempts: 3,
    jobBackoffMs: 100,
    idempotencyTtlSeconds: 3600,
    // A receiver, so that recording an event (what link, revoke and finished jobs do first) is covered too.
    webhooks: {
      url: 'https://hooks.example.com/connector',
      secret: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
      allowPrivate: false,
      retryBaseMs: 50,
      concurrency: 1,
    },
  };
}

/** Every operation a request may need, each expected to fail with a 503 within the bound. */
function everyOperation(backend: Backend): Array<[string, () => Promise<unknown>]> {
  return [
    ['connections.get', () => backend.connections.get('conn_x')],
    [
      'connections.create',
      () => backend.connections.create({ id: 'conn_x', subject: 's', issuedAt: 1, expiresAt: 4102444800, revoked: false }),
    ],
    ['connections.revokeSubject', () => backend.connections.revokeSubject('s')],
    ['connections.liveIds', () => backend.connections.liveIds('s')],
    ['events.enqueue', () => backend.events.enqueue(newEvent('connection.created', 'conn_x'))],
    ['things.add', () => backend.things.add('s', { id: 'thing_x', name: 'n', notes: null, created_at: new Date().toISOString() })],
    ['things.list', () => backend.things.list('s', { limit: 5 })],
    [
      'ledger.claim',
      () =>
        backend.ledger.claim({ subject: 's', key: 'k', fingerprint: 'f', jobId: 'job_x', operation: 'createJob', cost: 1, ttlSeconds: 60 }),
    ],
    ['ledger.usage', () => backend.ledger.usage('s')],
    ['rateLimits.hit', () => backend.rateLimits.hit('sub:s', 60)],
    [
      'queue.enqueue',
      () =>
        backend.queue.enqueue({
          id: 'job_x',
          subject: 's',
          operation: 'createJob',
          input: {},
          cost: 1,
          createdAt: new Date().toISOString(),
        }),
    ],
    ['queue.get', () => backend.queue.get('job_x')],
    ['queue.counts', () => backend.queue.counts()],
    ['jobIdKeys.load', () => backend.jobIdKeys.load('a'.repeat(43))],
  ];
}

async function expectUnavailableWithinBound(name: string, operation: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  const error = await operation().then(
    () => undefined,
    (e: unknown) => e,
  );
  const elapsed = Date.now() - started;
  expect(error, `${name} should fail while Redis is down`).to.be.instanceOf(ServiceUnavailableError);
  expect((error as ServiceUnavailableError).status).to.equal(503);
  expect((error as ServiceUnavailableError).headers['Retry-After']).to.match(/^\d+$/);
  expect(elapsed, `${name} took ${elapsed} ms`).to.be.below(BOUND_MS);
  return elapsed;
}

describe('the Redis backend during Redis outages (in-process)', () => {
  describe('Redis killed while the backend runs, then restarted on the same port', () => {
    let redis: TestRedis;
    let backend: Backend;
    const metrics = new Metrics({ defaultMetrics: false });

    before(async () => {
      redis = await startRedis();
      backend = createRedisBackend({ config: config(redis.url), metrics, logger: quietLogger });
      await waitFor(() => backend.ready(), { what: 'the backend to be ready' });
    });
    after(async () => {
      await backend?.close(1000);
      await redis?.stop();
    });

    it('works while Redis is up and reports connector_redis_up 1', async () => {
      expect(await backend.ledger.usage('s')).to.deep.equal({ jobs_charged: 0, credits_spent: 0, credits_refunded: 0 });
      expect(await metricValue(metrics, 'connector_redis_up')).to.equal(1);
    });

    it('every store and queue operation fails with a 503 within the bound, and ready() is false', async () => {
      await redis.kill();
      const errorsBefore = await metricValue(metrics, 'connector_redis_errors_total');
      const elapsed: number[] = [];
      for (const [name, operation] of everyOperation(backend)) elapsed.push(await expectUnavailableWithinBound(name, operation));
      const readyStarted = Date.now();
      expect(await backend.ready()).to.equal(false);
      expect(Date.now() - readyStarted).to.be.below(1500);
      expect(await metricValue(metrics, 'connector_redis_errors_total')).to.be.greaterThan(errorsBefore);
      // The gauge follows the client's close event, which may trail the first refused command by a tick.
      await waitFor(async () => (await metricValue(metrics, 'connector_redis_up')) === 0, {
        timeoutMs: 2000,
        what: 'connector_redis_up 0',
      });
      measurement(`      503 latency while Redis is down: max ${Math.max(...elapsed)} ms over ${elapsed.length} operations`);
    });

    it('recovers by itself once Redis is back: ready() true and writes succeed, with no new backend', async () => {
      const restarted = Date.now();
      await redis.restart();
      await waitFor(() => backend.ready(), { timeoutMs: 15_000, what: 'the backend to reconnect' });
      measurement(`      ready again ${Date.now() - restarted} ms after the restart`);
      expect(
        (
          await backend.ledger.claim({
            subject: 's',
            key: 'k',
            fingerprint: 'f',
            jobId: 'job_after',
            operation: 'createJob',
            cost: 1,
            ttlSeconds: 60,
          })
        ).outcome,
      ).to.equal('created');
      await backend.queue.enqueue({
        id: 'job_after',
        subject: 's',
        operation: 'createJob',
        input: { prompt: 'p' },
        cost: 1,
        createdAt: new Date().toISOString(),
      });
      expect((await backend.queue.get('job_after'))?.status).to.equal('queued');
      expect(await metricValue(metrics, 'connector_redis_up')).to.equal(1);
    });
  });

  describe('Redis down when the backend starts', () => {
    let redis: TestRedis;
    let backend: Backend;

    before(async () => {
      redis = await startRedis();
      await redis.kill();
      backend = createRedisBackend({ config: config(redis.url), metrics: new Metrics({ defaultMetrics: false }), logger: quietLogger });
    });
    after(async () => {
      await backend?.close(1000);
      await redis?.stop();
    });

    it('answers 503 within the bound for every operation (the queue included) and is not ready', async () => {
      for (const [name, operation] of everyOperation(backend)) await expectUnavailableWithinBound(name, operation);
      expect(await backend.ready()).to.equal(false);
    });

    it('starts working once Redis comes up, the BullMQ queue included', async () => {
      await redis.restart();
      await waitFor(() => backend.ready(), { timeoutMs: 15_000, what: 'the backend to connect' });
      await waitFor(
        () =>
          backend.queue
            .enqueue({ id: 'job_late', subject: 's', operation: 'createJob', input: {}, cost: 1, createdAt: new Date().toISOString() })
            .then(() => true),
        { what: 'the queue to accept a job' },
      );
      expect((await backend.queue.get('job_late'))?.id).to.equal('job_late');
      expect((await backend.queue.counts()).queued).to.equal(1);
    });
  });

  describe('Redis frozen (SIGSTOP: the connection stays open, nothing answers), then resumed', () => {
    let redis: TestRedis;
    let backend: Backend;
    let pid: number;

    before(async () => {
      redis = await startRedis();
      backend = createRedisBackend({ config: config(redis.url), metrics: new Metrics({ defaultMetrics: false }), logger: quietLogger });
      await waitFor(() => backend.ready(), { what: 'the backend to be ready' });
      // Touch the queue once so that it is open, as it is in a running API.
      await backend.queue.counts();
      const probe = new Redis(redis.url);
      pid = Number(/^process_id:(\d+)/m.exec(await probe.info('server'))?.[1]);
      probe.disconnect();
      expect(pid).to.be.greaterThan(0);
    });
    after(async () => {
      if (pid) process.kill(pid, 'SIGCONT');
      await backend?.close(1000);
      await redis?.stop();
    });

    it('every operation answers 503 within the command timeout bound instead of hanging, and ready() is false', async () => {
      process.kill(pid, 'SIGSTOP');
      const elapsed = await Promise.all(everyOperation(backend).map(([name, operation]) => expectUnavailableWithinBound(name, operation)));
      measurement(`      503 latency with Redis frozen: max ${Math.max(...elapsed)} ms (command timeout ${COMMAND_TIMEOUT_MS} ms)`);
      expect(Math.min(...elapsed)).to.be.at.least(COMMAND_TIMEOUT_MS - 50);
      expect(await backend.ready()).to.equal(false);
    });

    it('answers again once Redis resumes', async () => {
      process.kill(pid, 'SIGCONT');
      await waitFor(() => backend.ready(), { timeoutMs: 15_000, what: 'the backend to answer again' });
      expect(await backend.rateLimits.hit('sub:after', 60)).to.include({ count: 1 });
    });
  });
});
