import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { BullmqJobQueue } from '../../shared/adapters/redis/bullmq-job-queue';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import type { NewJob } from '../../shared/domain/jobs/job';
import { MAX_STALLS } from '../../shared/domain/jobs/job-lifecycle';
import type { Processor } from '../../shared/domain/jobs/processor';
import { singleNodeConnection } from '../../shared/platform/config/redis-settings';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { createJobWorker, type JobWorker } from '../../worker/job-worker';
import { connectStoreClient, metricValue, queueOn, quietLogger, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const PREFIX = 'stall-refund:';

// A job that keeps stalling (its worker loses the lock: here its lock is deleted, as when the worker dies)
// must end failed and refunded exactly once. The refund is made to fail at first (its record key holds the
// wrong type, so the ledger's script errors), standing for a worker that stops right where the job's end
// and its refund part: the job must not be left failed without its refund. It is refunded once the ledger
// answers again, and the processor never runs once the job has stalled more often than forgiven.
describe('a job that stalls more often than forgiven, whose refund fails at first (in-process worker, one Redis node)', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let store: StoreClient;
  let queue: BullmqJobQueue;
  let worker: JobWorker;
  let ledger: RedisLedgerStore;
  const runs = new Map<string, number>();
  const metrics = new Metrics({ defaultMetrics: false });

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, PREFIX);
    ledger = new RedisLedgerStore(store.client, store.keys, store.guard);
    queue = queueOn(store, {
      attempts: 1,
      backoffMs: 20,
    });
    // Never ends by itself: each attempt waits for its signal (which nothing fires here).
    const stuck: Processor = (_input, { jobId, signal }) => {
      runs.set(jobId, (runs.get(jobId) ?? 0) + 1);
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    };
    worker = createJobWorker({
      config: {
        redis: singleNodeConnection(redis.url),
        jobQueueShards: 1,
        redisKeyPrefix: PREFIX,
        redisCommandTimeoutMs: 1000,
        idempotencyTtlSeconds: 3600,
        workerConcurrency: 4,
        jobLockMs: 2000,
        jobStalledIntervalMs: 200,
      },
      processors: new Map([['stuck', stuck]]),
      policies: new Map(),
      metrics,
      logger: quietLogger,
    });
  });
  after(async () => {
    await worker?.close(500);
    await queue?.close(1000);
    await store?.close();
    await redis?.stop();
  });

  it(`after ${MAX_STALLS + 1} stalls it ends failed without running again, refunded once the ledger answers, never left unrefunded`, async () => {
    const subject = `stall-${randomBytes(4).toString('hex')}`;
    const job: NewJob = {
      id: `job_${randomBytes(24).toString('base64url').slice(0, 32)}`,
      subject,
      operation: 'stuck',
      input: { prompt: 'x' },
      cost: 2,
      createdAt: new Date().toISOString(),
    };
    const claim = { subject, key: job.id, fingerprint: 'fp', jobId: job.id, operation: 'stuck', cost: 2, ttlSeconds: 3600 };
    expect((await ledger.claim({ ...claim, day: job.createdAt.slice(0, 10) })).outcome).to.equal('created');
    const refundRecord = store.keys.refund(subject, job.id);
    await store.client.hset(refundRecord, 'not', 'a string');
    await queue.enqueue(job);

    const queueKey = (suffix: string) => `${store.keys.bullPrefix}:${store.keys.jobQueueName(0)}:${suffix}`;
    const jobKey = queueKey(job.id);
    const stalls = async () => Number((await store.client.hget(jobKey, 'stc')) ?? 0);
    // Each stall: the lock of the running attempt goes, the stalled check hands the job back, a worker retakes it.
    for (let stall = 1; stall <= MAX_STALLS + 1; stall++) {
      await waitFor(async () => (await store.client.exists(`${jobKey}:lock`)) === 1 && (await stalls()) === stall - 1, {
        what: `attempt ${stall} to hold the job`,
      });
      await store.client.del(`${jobKey}:lock`);
      await waitFor(async () => (await stalls()) === stall, { what: `stall ${stall} to be counted`, timeoutMs: 20_000 });
    }
    // The ending that followed the last stall could not refund. Whatever it did, the job may not sit failed
    // and unrefunded: the ledger is mended, and the job must end failed and refunded once.
    await waitFor(
      async () =>
        (await store.client.zscore(queueKey('delayed'), job.id)) !== null ||
        (await store.client.zscore(queueKey('failed'), job.id)) !== null,
      {
        what: 'the ending after the last stall',
      },
    );
    await store.client.del(refundRecord);
    const ended = await waitFor(
      async () => {
        const stored = await queue.get(job.id);
        return stored?.status === 'failed' && (await ledger.usage(subject)).credits_refunded > 0 ? stored : undefined;
      },
      { what: 'the job to end failed and refunded', timeoutMs: 15_000 },
    );
    expect(ended.refunded_credits).to.equal(2);
    expect(ended.error).to.deep.equal({ message: 'The job could not be completed.' });
    expect(runs.get(job.id), 'it ran before each stall, never after the last').to.equal(MAX_STALLS + 1);
    expect(await ledger.usage(subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 0, credits_refunded: 2 });
    expect(await metricValue(metrics, 'connector_credits_refunded_total')).to.equal(2);
  });
});
