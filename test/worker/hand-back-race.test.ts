import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { BullmqJobQueue } from '../../shared/adapters/redis/bullmq-job-queue';
import type { NewJob } from '../../shared/domain/jobs/job';
import type { Processor } from '../../shared/domain/jobs/processor';
import { singleNodeConnection } from '../../shared/platform/config/redis-settings';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { createJobWorker, type JobWorker } from '../../worker/job-worker';
import { connectStoreClient, queueOn, quietLogger, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const CONFIG = {
  redisKeyPrefix: 'race:',
  redisCommandTimeoutMs: 1000,
  workerConcurrency: 1,
  jobLockMs: 30_000,
  jobStalledIntervalMs: 30_000,
  idempotencyTtlSeconds: 3600,
};

async function succeededCount(metrics: Metrics): Promise<number> {
  const text = await metrics.registry.metrics();
  return Number(/^connector_jobs_completed_total\{operation="race",outcome="succeeded"\} (\S+)$/m.exec(text)?.[1] ?? 0);
}

// A job whose attempt ends just after its worker handed it back at shutdown: in a rolling restart (bench/
// rolling-restart.ts) the stopped worker used to record the success as well as the worker that ran it again.
describe('a job whose attempt ends after its worker handed it back (shutdown with no grace left)', function () {
  this.timeout(30_000);
  let redis: TestRedis;
  let store: StoreClient;
  let queue: BullmqJobQueue;
  let first: JobWorker | undefined;
  let second: JobWorker | undefined;

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'race:');
    queue = queueOn(store, {
      attempts: 3,
      backoffMs: 20,
    });
  });
  after(async () => {
    await first?.close(0);
    await second?.close(1000);
    await queue?.close(1000);
    await store?.close();
    await redis?.stop();
  });

  it('is not counted by the stopped worker; the next worker finishes it, and it succeeds once', async () => {
    const job: NewJob = {
      id: `job_${randomBytes(24).toString('base64url').slice(0, 32)}`,
      subject: 's',
      operation: 'race',
      input: { prompt: 'x' },
      cost: 1,
      createdAt: new Date().toISOString(),
    };
    let started = false;
    let returned = false;
    // Runs until the job is back in the queue (handed back), then finishes: the attempt ends after the hand-back.
    const lingering: Processor = async () => {
      started = true;
      await waitFor(async () => (await queue.get(job.id))?.status === 'queued', { what: 'the job to be handed back' });
      returned = true;
      return { done: 'late' };
    };
    const firstMetrics = new Metrics({ defaultMetrics: false });
    first = createJobWorker({
      config: { ...CONFIG, redis: singleNodeConnection(redis.url), jobQueueShards: 1 },
      processors: new Map([['race', lingering]]),
      policies: new Map(),
      metrics: firstMetrics,
      logger: quietLogger,
    });
    await queue.enqueue(job);
    await waitFor(() => started, { what: 'the attempt to start' });

    await first.close(0);
    await waitFor(() => returned, { what: 'the attempt to end' });
    expect(await succeededCount(firstMetrics), 'successes counted by the stopped worker').to.equal(0);
    expect((await queue.get(job.id))?.status).to.equal('queued');

    const secondMetrics = new Metrics({ defaultMetrics: false });
    second = createJobWorker({
      config: { ...CONFIG, redis: singleNodeConnection(redis.url), jobQueueShards: 1 },
      processors: new Map<string, Processor>([['race', async () => ({ done: 'again' })]]),
      policies: new Map(),
      metrics: secondMetrics,
      logger: quietLogger,
    });
    const done = await waitFor(
      async () => {
        const stored = await queue.get(job.id);
        return stored?.status === 'succeeded' ? stored : undefined;
      },
      { what: 'the job to succeed' },
    );
    expect(done.result).to.deep.equal({ done: 'again' });
    expect(await succeededCount(secondMetrics)).to.equal(1);
    expect(await succeededCount(firstMetrics)).to.equal(0);
  });
});
