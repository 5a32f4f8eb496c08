import { Queue } from 'bullmq';
import { expect } from 'chai';
import type { BullmqJobQueue } from '../../shared/adapters/redis/bullmq-job-queue';
import { JOB_QUEUE_NAME } from '../../shared/adapters/redis/redis-keys';
import { newJob } from '../support/new-job';
import { connectStoreClient, queueOn, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';

describe('BullmqJobQueue (the API side of the queue) on a private redis-server', () => {
  let redis: TestRedis;
  let store: StoreClient;
  let queue: BullmqJobQueue;

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'q:');
    queue = queueOn(store, {
      attempts: 3,
      backoffMs: 100,
      policies: new Map([['ownSettings', { attempts: 7, backoffMs: 250, timeoutMs: undefined, refundOnFailure: true }]]),
      retentionSeconds: 7200,
    });
  });
  after(async () => {
    await queue?.close(1000);
    await store?.close();
    await redis?.stop();
  });

  it('an enqueued job reads back queued, unstarted, with its owner, input, cost and creation time', async () => {
    const job = newJob();
    await queue.enqueue(job);
    expect(await queue.get(job.id)).to.deep.equal({
      id: job.id,
      subject: job.subject,
      operation: 'createJob',
      status: 'queued',
      input: job.input,
      cost: 1,
      created_at: job.createdAt,
      started_at: null,
      finished_at: null,
      result: null,
      error: null,
      attempts: 0,
      progress: null,
      partial: null,
      cancel_requested_at: null,
      refunded_credits: 0,
    });
  });

  it('enqueueing an existing id keeps the stored job and never creates a second one', async () => {
    const job = newJob();
    await queue.enqueue(job);
    await queue.enqueue({ ...job, input: { prompt: 'something else' }, createdAt: new Date(0).toISOString() });
    const stored = await queue.get(job.id);
    expect(stored?.input).to.deep.equal({ prompt: 'hello' });
    expect(stored?.created_at).to.equal(job.createdAt);
    expect((await queue.counts()).queued).to.equal(2);
  });

  it('enqueueing a new id resolves with exactly the record a read then returns', async () => {
    const job = newJob();
    const answered = await queue.enqueue(job);
    expect(answered).to.not.equal(undefined);
    expect(answered).to.deep.equal(await queue.get(job.id));
  });

  it('enqueueing an existing id with other data resolves undefined, so the caller reads the stored job', async () => {
    const job = newJob();
    await queue.enqueue(job);
    expect(await queue.enqueue({ ...job, input: { prompt: 'something else' } })).to.equal(undefined);
    expect((await queue.get(job.id))?.input).to.deep.equal({ prompt: 'hello' });
  });

  it('an unknown id reads undefined', async () => {
    expect(await queue.get('job_doesnotexistdoesnotexistdoesno')).to.equal(undefined);
  });

  it('jobs carry the attempts, exponential backoff and a retention of at least the idempotency TTL', async () => {
    const job = newJob();
    await queue.enqueue(job);
    const raw = new Queue(JOB_QUEUE_NAME, { connection: store.client, prefix: store.keys.bullPrefix });
    try {
      const stored = await raw.getJob(job.id);
      expect(stored?.name).to.equal('createJob');
      expect(stored?.opts.attempts).to.equal(3);
      expect(stored?.opts.backoff).to.deep.equal({ type: 'exponential', delay: 100 });
      expect(stored?.opts.removeOnComplete).to.deep.equal({ age: 7200 });
      expect(stored?.opts.removeOnFail).to.deep.equal({ age: 7200 });
    } finally {
      await raw.close();
    }
  });

  it('a job of an operation with its own attempts and back-off is stored with them instead of the global ones', async () => {
    const job = newJob({ operation: 'ownSettings' });
    await queue.enqueue(job);
    const raw = new Queue(JOB_QUEUE_NAME, { connection: store.client, prefix: store.keys.bullPrefix });
    try {
      const stored = await raw.getJob(job.id);
      expect(stored?.opts.attempts).to.equal(7);
      expect(stored?.opts.backoff).to.deep.equal({ type: 'exponential', delay: 250 });
      expect(stored?.opts.removeOnComplete).to.deep.equal({ age: 7200 });
    } finally {
      await raw.close();
    }
  });

  it('BullMQ keys live under the configured prefix, beside the record of shard counts', async () => {
    const keys = await store.client.keys('*');
    expect(keys.length).to.be.greaterThan(0);
    expect(keys.every((key) => key.startsWith('q:bull:jobs:') || key === 'q:job-shards')).to.equal(true, keys.join(', '));
    expect(await store.client.smembers('q:job-shards')).to.deep.equal(['1']);
  });
});
