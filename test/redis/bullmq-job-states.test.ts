import { Queue, UnrecoverableError, Worker } from 'bullmq';
import { expect } from 'chai';
import Redis from 'ioredis';
import type { BullmqJobQueue } from '../../shared/adapters/redis/bullmq-job-queue';
import { type BullJobData, toBullJobData, toJobStatus } from '../../shared/adapters/redis/bullmq-job-record';
import { JOB_QUEUE_NAME } from '../../shared/adapters/redis/redis-keys';
import type { JobStatus, NewJob } from '../../shared/domain/jobs/job';
import { newJob } from '../support/new-job';
import { commandCalls, connectStoreClient, queueOn, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

describe('job reads on Redis against BullMQ’s own job states, on a private redis-server', function () {
  this.timeout(20_000);
  let redis: TestRedis;
  let store: StoreClient;
  let queue: BullmqJobQueue;
  let bull: Queue<BullJobData>;
  let worker: Worker<BullJobData>;
  let workerClient: Redis;
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const jobs = {
    completed: newJob({ subject: 's', input: { prompt: 'done' } }),
    failed: newJob({ subject: 's', input: { prompt: 'fail' } }),
    active: newJob({ subject: 's', input: { prompt: 'hold' } }),
    waiting: newJob({ subject: 's', input: { prompt: 'wait' } }),
    delayed: newJob({ subject: 's', input: { prompt: 'later' } }),
  };

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'st:');
    queue = queueOn(store, {
      attempts: 3,
      backoffMs: 100,
    });
    bull = new Queue(JOB_QUEUE_NAME, { connection: store.client, prefix: store.keys.bullPrefix });
    workerClient = new Redis(redis.url, { maxRetriesPerRequest: null });
    // One job at a time: while it holds the `hold` job, the jobs added after it stay waiting.
    worker = new Worker<BullJobData>(
      JOB_QUEUE_NAME,
      async (job) => {
        if (job.data.input.prompt === 'fail') throw new UnrecoverableError('refused');
        if (job.data.input.prompt === 'hold') await held;
        return { done: true };
      },
      { connection: workerClient, prefix: store.keys.bullPrefix, concurrency: 1 },
    );
    for (const name of ['completed', 'failed', 'active'] as const) await queue.enqueue(jobs[name]);
    await waitFor(async () => (await bull.getJobState(jobs.active.id)) === 'active', { what: 'the held job to be active' });
    await queue.enqueue(jobs.waiting);
    await bull.add('createJob', toBullJobData(jobs.delayed), { jobId: jobs.delayed.id, delay: 600_000 });
  });
  after(async () => {
    release();
    await worker?.close();
    workerClient?.disconnect();
    await bull?.close();
    await queue?.close(1000);
    await store?.close();
    await redis?.stop();
  });

  it('each of completed, failed, active, waiting and delayed reads the status BullMQ’s own state maps to', async () => {
    const expected: Record<keyof typeof jobs, JobStatus> = {
      completed: 'succeeded',
      failed: 'failed',
      active: 'running',
      waiting: 'queued',
      delayed: 'queued',
    };
    for (const [name, job] of Object.entries(jobs) as Array<[keyof typeof jobs, NewJob]>) {
      const bullState = await bull.getJobState(job.id);
      expect(toJobStatus(bullState), `${name}: BullMQ says ${bullState}`).to.equal(expected[name]);
      expect((await queue.get(job.id))?.status, name).to.equal(expected[name]);
    }
  });

  it('a finished job’s record carries its result or error, its start and finish times and its attempts', async () => {
    const done = await queue.get(jobs.completed.id);
    expect(done).to.include({ status: 'succeeded', subject: 's', operation: 'createJob', attempts: 1, error: null });
    expect(done?.result).to.deep.equal({ done: true });
    expect(done?.started_at).to.be.a('string');
    expect(Date.parse(done!.finished_at!)).to.be.at.least(Date.parse(done!.started_at!));
    const failed = await queue.get(jobs.failed.id);
    expect(failed).to.include({ status: 'failed', result: null, attempts: 1 });
    expect(failed?.error).to.have.property('message').that.is.a('string').and.not.include('refused');
  });

  it('a read is one script call and scans no list, however long the backlog', async () => {
    await bull.addBulk(
      Array.from({ length: 2000 }, (_, i) => ({
        name: 'createJob',
        data: toBullJobData(newJob({ subject: 's', input: { prompt: `backlog ${i}` } })),
      })),
    );
    const before = await commandCalls(store.client);
    for (const job of Object.values(jobs)) await queue.get(job.id);
    const after = await commandCalls(store.client);
    const delta = (name: string) => (after[name] ?? 0) - (before[name] ?? 0);
    expect(delta('evalsha') + delta('eval')).to.equal(5);
    expect(delta('lrange') + delta('lpos')).to.equal(0);
    // The fields a record needs, not the whole hash (options, stack traces).
    expect(delta('hmget')).to.equal(5);
    expect(delta('hgetall')).to.equal(0);
  });

  it('a job left in the active list after its lock is gone (its worker died) reads queued: nobody runs it', async () => {
    await store.client.del(`${bull.toKey(jobs.active.id)}:lock`);
    expect(await bull.getJobState(jobs.active.id)).to.equal('active');
    expect((await queue.get(jobs.active.id))?.status).to.equal('queued');
  });
});
