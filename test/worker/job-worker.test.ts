import { expect } from 'chai';
import type { BullmqJobQueue } from '../../shared/adapters/redis/bullmq-job-queue';
import type { JobRecord, NewJob } from '../../shared/domain/jobs/job';
import { JobError } from '../../shared/domain/jobs/job-error';
import { GENERIC_JOB_FAILURE } from '../../shared/domain/jobs/job-runner';
import type { Processor } from '../../shared/domain/jobs/processor';
import { singleNodeConnection } from '../../shared/platform/config/redis-settings';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { createJobWorker, type JobWorker } from '../../worker/job-worker';
import { newJob } from '../support/new-job';
import { connectStoreClient, metricValue, queueOn, quietLogger, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

describe('the BullMQ job worker, in-process, on a private redis-server', () => {
  let redis: TestRedis;
  let store: StoreClient;
  let queue: BullmqJobQueue;
  let worker: JobWorker;
  const metrics = new Metrics({ defaultMetrics: false });
  const calls = new Map<string, number>();
  const attemptTimes = new Map<string, number[]>();
  const count = (id: string) => calls.set(id, (calls.get(id) ?? 0) + 1);

  const flaky: Processor = async (_input, { jobId, attempt }) => {
    count(jobId);
    attemptTimes.set(jobId, [...(attemptTimes.get(jobId) ?? []), Date.now()]);
    if (attempt < 3) throw new Error('socket hang up at 10.0.0.7');
    return { attempt };
  };
  const processors = new Map<string, Processor>([
    [
      'echo',
      async (input, { jobId }) => {
        count(jobId);
        return { echoed: input.prompt };
      },
    ],
    ['echo-undated', async (input) => ({ echoed: input.prompt })],
    ['flaky', flaky],
    // The same, under its own name so that the metrics test's count for `flaky` stays its own.
    ['flaky-start', flaky],
    [
      'broken',
      async (_input, { jobId }) => {
        count(jobId);
        throw new Error('ECONNREFUSED internal-db:5432 password=hunter2');
      },
    ],
    [
      'refused',
      async (_input, { jobId }) => {
        count(jobId);
        throw new JobError('The prompt asks for something we cannot do.', { retryable: false });
      },
    ],
    [
      'busy',
      async (_input, { jobId, attempt }) => {
        count(jobId);
        throw new JobError(`Still busy (attempt ${attempt}).`);
      },
    ],
  ]);

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'w:');
    queue = queueOn(store, {
      attempts: 3,
      backoffMs: 20,
    });
    worker = createJobWorker({
      config: {
        redis: singleNodeConnection(redis.url),
        jobQueueShards: 1,
        redisKeyPrefix: 'w:',
        redisCommandTimeoutMs: 1000,
        idempotencyTtlSeconds: 3600,
        workerConcurrency: 4,
        jobLockMs: 5000,
        jobStalledIntervalMs: 5000,
      },
      processors,
      policies: new Map(),
      metrics,
      logger: quietLogger,
    });
  });
  after(async () => {
    await worker?.close(2000);
    await queue?.close(1000);
    await store?.close();
    await redis?.stop();
  });

  async function runToEnd(job: NewJob): Promise<JobRecord> {
    await queue.enqueue(job);
    return waitFor(
      async () => {
        const stored = await queue.get(job.id);
        return stored && (stored.status === 'succeeded' || stored.status === 'failed') ? stored : undefined;
      },
      { what: `job ${job.operation} to finish` },
    );
  }

  it('is ready while Redis answers', async () => {
    expect(await waitFor(() => worker.ready(), { what: 'worker readiness' })).to.equal(true);
  });

  it('a job dispatched by its name succeeds with the processor’s result, times and one attempt', async () => {
    const job = newJob({ operation: 'echo', input: { prompt: 'hi' } });
    const done = await runToEnd(job);
    expect(done.status).to.equal('succeeded');
    expect(done.result).to.deep.equal({ echoed: 'hi' });
    expect(done.attempts).to.equal(1);
    expect(done.error).to.equal(null);
    expect(Date.parse(done.started_at!)).to.be.at.least(Date.parse(done.created_at));
    expect(Date.parse(done.finished_at!)).to.be.at.least(Date.parse(done.started_at!));
  });

  it('a processor that fails twice with an unknown error is retried with exponential backoff and succeeds on attempt 3', async () => {
    const job = newJob({ operation: 'flaky' });
    const done = await runToEnd(job);
    expect(done.status).to.equal('succeeded');
    expect(done.result).to.deep.equal({ attempt: 3 });
    expect(done.attempts).to.equal(3);
    expect(calls.get(job.id)).to.equal(3);
    // Exponential backoff from a 20 ms base: at least 20 ms before attempt 2 and 40 ms before attempt 3.
    const [first, second, third] = attemptTimes.get(job.id)!;
    expect(second - first).to.be.at.least(20);
    expect(third - second).to.be.at.least(40);
  });

  it('a job that succeeds on attempt 3 shows the start of attempt 3 as started_at, the attempt it ended on', async () => {
    const job = newJob({ operation: 'flaky-start' });
    const done = await runToEnd(job);
    expect(done.attempts).to.equal(3);
    const [, second, third] = attemptTimes.get(job.id)!;
    // BullMQ stamps an attempt's start just before the processor runs, and attempt 3 begins at least the
    // 40 ms backoff after attempt 2 ran (docs/decisions/job-shows-its-attempt.md).
    expect(Date.parse(done.started_at!)).to.be.at.most(third);
    expect(Date.parse(done.started_at!)).to.be.above(second);
  });

  it('an unknown error on every attempt fails the job after all attempts with the generic message only', async () => {
    const job = newJob({ operation: 'broken' });
    const done = await runToEnd(job);
    expect(done.status).to.equal('failed');
    expect(done.error).to.deep.equal({ message: GENERIC_JOB_FAILURE });
    expect(JSON.stringify(done)).to.not.match(/ECONNREFUSED|hunter2|internal-db/);
    expect(calls.get(job.id)).to.equal(3);
  });

  it('a non-retryable JobError fails the job at once with its own message', async () => {
    const job = newJob({ operation: 'refused' });
    const done = await runToEnd(job);
    expect(done.status).to.equal('failed');
    expect(done.error).to.deep.equal({ message: 'The prompt asks for something we cannot do.' });
    expect(calls.get(job.id)).to.equal(1);
    expect(done.attempts).to.equal(1);
  });

  it('a retryable JobError on every attempt fails with the last attempt’s message', async () => {
    const job = newJob({ operation: 'busy' });
    const done = await runToEnd(job);
    expect(done.status).to.equal('failed');
    expect(done.error).to.deep.equal({ message: 'Still busy (attempt 3).' });
    expect(calls.get(job.id)).to.equal(3);
  });

  it('a job whose operation has no processor fails with the generic message', async () => {
    const done = await runToEnd(newJob({ operation: 'unknownOperation' }));
    expect(done.status).to.equal('failed');
    expect(done.error).to.deep.equal({ message: GENERIC_JOB_FAILURE });
  });

  it('a job whose created_at is not a date succeeds on its first attempt and is counted; only its wait time is left out', async () => {
    const job = newJob({ operation: 'echo-undated', input: { prompt: 'undated' }, createdAt: 'not a date' });
    const done = await runToEnd(job);
    expect(done.status).to.equal('succeeded');
    expect(done.attempts).to.equal(1);
    expect(done.result).to.deep.equal({ echoed: 'undated' });
    const text = await metrics.registry.metrics();
    expect(text).to.match(/^connector_jobs_completed_total\{operation="echo-undated",outcome="succeeded"\} 1$/m);
    expect(text).to.match(/^connector_job_duration_seconds_count\{operation="echo-undated"\} 1$/m);
    expect(text).to.not.match(/connector_job_wait_seconds_count\{operation="echo-undated"\}/);
  });

  it('every job above is measured once: its outcome, its run time, and one wait (its first start) however many attempts it took', async () => {
    const text = await metrics.registry.metrics();
    const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    const outcomes: Array<[string, 'succeeded' | 'failed']> = [
      ['echo', 'succeeded'],
      ['flaky', 'succeeded'],
      ['flaky-start', 'succeeded'],
      ['broken', 'failed'],
      ['refused', 'failed'],
      ['busy', 'failed'],
      ['unknownOperation', 'failed'],
    ];
    for (const [operation, outcome] of outcomes) {
      expect(value(`connector_jobs_completed_total{operation="${operation}",outcome="${outcome}"}`), operation).to.equal(1);
      expect(value(`connector_job_duration_seconds_count{operation="${operation}"}`), operation).to.equal(1);
      expect(value(`connector_job_wait_seconds_count{operation="${operation}"}`), operation).to.equal(1);
    }
    expect(text).to.not.match(/operation="(?:echo|flaky)",outcome="failed"/);
    // The run time spans every attempt from the first start: attempt 3 of `flaky` began after 20 + 40 ms of backoff.
    expect(value('connector_job_duration_seconds_sum{operation="flaky"}')).to.be.at.least(0.06);
    expect(await metricValue(metrics, 'connector_redis_up')).to.equal(1);
  });
});
