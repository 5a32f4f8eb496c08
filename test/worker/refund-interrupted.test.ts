import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { BullmqJobQueue } from '../../shared/adapters/redis/bullmq-job-queue';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import type { JobRecord, NewJob } from '../../shared/domain/jobs/job';
import { JobError } from '../../shared/domain/jobs/job-error';
import type { Processor } from '../../shared/domain/jobs/processor';
import { singleNodeConnection } from '../../shared/platform/config/redis-settings';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { createJobWorker, type JobWorker } from '../../worker/job-worker';
import { connectStoreClient, metricValue, queueOn, quietLogger, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const REFUSAL = 'This cannot be done.';

// The worker records a finished job's event after its refund and before BullMQ marks the job: a hook that
// throws right there stands for a worker dying at that point. BullMQ then takes the job again (as it would
// after the lock of a dead worker expired), and the second attempt must end the job the same way, without
// running it, and without a second refund.
describe('a job whose worker stops between its refund and its end (in-process worker, private redis-server)', () => {
  let redis: TestRedis;
  let store: StoreClient;
  let queue: BullmqJobQueue;
  let worker: JobWorker;
  let ledger: RedisLedgerStore;
  const metrics = new Metrics({ defaultMetrics: false });
  const runs = new Map<string, number>();
  let interruptions = 0;

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'refund-stop:');
    ledger = new RedisLedgerStore(store.client, store.keys, store.guard);
    queue = queueOn(store, {
      attempts: 3,
      backoffMs: 20,
    });
    const refused: Processor = async (_input, { jobId }) => {
      runs.set(jobId, (runs.get(jobId) ?? 0) + 1);
      throw new JobError(REFUSAL, { retryable: false });
    };
    worker = createJobWorker({
      config: {
        redis: singleNodeConnection(redis.url),
        jobQueueShards: 1,
        redisKeyPrefix: 'refund-stop:',
        redisCommandTimeoutMs: 1000,
        idempotencyTtlSeconds: 3600,
        workerConcurrency: 2,
        jobLockMs: 5000,
        jobStalledIntervalMs: 5000,
      },
      processors: new Map([['refused', refused]]),
      policies: new Map(),
      metrics,
      logger: quietLogger,
      events: { enabled: true, enqueue: async () => {}, close: async () => {} },
      // Only the first ending of each job is interrupted.
      afterJobEvent: () => {
        interruptions++;
        if (interruptions % 2 === 1) throw new Error('the worker stops here');
      },
    });
  });
  after(async () => {
    await worker?.close(2000);
    await queue?.close(1000);
    await store?.close();
    await redis?.stop();
  });

  it('a job that failed and was refunded is taken again, ends failed without running again, and is refunded once', async () => {
    const subject = `refund-${randomBytes(4).toString('hex')}`;
    const job: NewJob = {
      id: `job_${randomBytes(24).toString('base64url').slice(0, 32)}`,
      subject,
      operation: 'refused',
      input: { prompt: 'x' },
      cost: 2,
      createdAt: new Date().toISOString(),
    };
    const day = job.createdAt.slice(0, 10);
    const claim = { subject, key: job.id, fingerprint: 'fp', jobId: job.id, operation: 'refused', cost: 2, ttlSeconds: 3600, day };
    expect((await ledger.claim(claim)).outcome).to.equal('created');
    await queue.enqueue(job);
    const ended = await waitFor(
      async () => {
        const stored: JobRecord | undefined = await queue.get(job.id);
        return stored?.status === 'failed' ? stored : undefined;
      },
      { what: 'the job to end failed' },
    );
    expect(interruptions, 'the first ending was interrupted, the second went through').to.equal(2);
    expect(runs.get(job.id), 'the processor ran once').to.equal(1);
    expect(ended).to.include({ refunded_credits: 2, attempts: 2 });
    expect(ended.error).to.deep.equal({ message: REFUSAL });
    expect(await ledger.usage(subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 0, credits_refunded: 2 });
    // The ending ran twice; the refund was made, and counted, once.
    expect(await metricValue(metrics, 'connector_credits_refunded_total')).to.equal(2);
  });
});
