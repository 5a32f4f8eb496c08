import { expect } from 'chai';
import { MemoryJobIdKeyStore } from '../../shared/adapters/memory/memory-job-id-key-store';
import { BullmqJobQueue } from '../../shared/adapters/redis/bullmq-job-queue';
import { RedisKeys } from '../../shared/adapters/redis/redis-keys';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import type { JobRecord, NewJob } from '../../shared/domain/jobs/job';
import { StoredJobIdKey } from '../../shared/domain/jobs/job-id-key';
import { JobLifecycle } from '../../shared/domain/jobs/job-lifecycle';
import { JobService } from '../../shared/domain/jobs/job-service';
import { meteredMoney } from '../../shared/domain/jobs/job-settlement';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { connectStoreClient, quietLogger, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';

/** A queue whose next enqueue fails after doing nothing, as when the job's primary is unreachable. */
class FailingOnceQueue extends BullmqJobQueue {
  failNext = false;
  override async enqueue(job: NewJob, options?: { replaceFinished?: boolean; shard?: number }): Promise<JobRecord | undefined> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('the job shard is unreachable');
    }
    return super.enqueue(job, options);
  }
}

// On a cluster the claim (the subject's slot) and the enqueue (the shard's slot) are two calls; these are the
// cases between them, run with the cluster key layout on one private server.
describe('claim and enqueue in two calls (cluster layout): a failure between them still ends in one job, one charge', () => {
  let redis: TestRedis;
  let store: StoreClient;
  const keys = new RedisKeys('split:', true);
  const jobIdKey = new StoredJobIdKey(new MemoryJobIdKeyStore(), deriveKeys('split-claim-test-secret-0123456789abcdef').jobIdKey);
  const queueWith = (shards: number) =>
    new FailingOnceQueue(store.client, keys, store.guard, {
      attempts: 1,
      backoffMs: 0,
      retentionSeconds: 600,
      logger: quietLogger,
      shards,
      durability: { minReplicas: 0, waitMs: 100 },
    });
  const service = (queue: BullmqJobQueue) => {
    const ledger = new RedisLedgerStore(store.client, keys, store.guard);
    const lifecycle = new JobLifecycle({ money: meteredMoney((refund) => ledger.refund(refund), 600) });
    return new JobService({ ledger, queue, lifecycle, jobIdKey, retentionSeconds: 600 });
  };
  const submission = (key: string) => ({
    subject: `split-${key}@example.com`,
    operation: 'createJob',
    input: { prompt: key },
    cost: 1,
    idempotencyKey: key,
  });
  const jobHashes = async () => (await store.client.keys('split:bull:*:job_*')).filter((key) => !/:(lock|logs)$/.test(key));

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'split:');
  });
  after(async () => {
    await store?.close();
    await redis?.stop();
  });

  it('the claim succeeded and the enqueue failed: 50 concurrent retries give one job on the recorded shard and one charge', async () => {
    const queue = queueWith(3);
    const jobs = service(queue);
    queue.failNext = true;
    const first = submission('concurrent');
    let failed = false;
    await jobs.submit(first).catch(() => (failed = true));
    expect(failed).to.equal(true);
    const retries = await Promise.all(Array.from({ length: 50 }, () => jobs.submit(first)));
    expect(new Set(retries.map((r) => r.job.id)).size).to.equal(1);
    expect(retries.every((r) => r.replayed)).to.equal(true);
    const id = retries[0].job.id;
    expect(await jobHashes()).to.deep.equal([`split:bull:${keys.jobQueueName(queue.shardFor(id))}:${id}`]);
    expect(await new RedisLedgerStore(store.client, keys, store.guard).usage(first.subject)).to.deep.equal({
      jobs_charged: 1,
      credits_spent: 1,
      credits_refunded: 0,
    });
    await queue.close(1000);
  });

  it('the shard count changed between the failed enqueue and the retry: the job still goes to the shard the claim chose', async () => {
    const before = queueWith(3);
    const sub = submission('resharded');
    const id = await service(before).jobIdFor(sub.subject, sub.idempotencyKey);
    // An id whose shard differs between the two counts, so the check can tell them apart.
    expect(before.shardFor(id)).to.not.equal(0);
    before.failNext = true;
    await service(before)
      .submit(sub)
      .catch(() => undefined);
    const after = queueWith(1);
    const retry = await service(after).submit(sub);
    expect(retry.job.id).to.equal(id);
    expect((await jobHashes()).filter((key) => key.endsWith(id))).to.deep.equal([
      `split:bull:${keys.jobQueueName(before.shardFor(id))}:${id}`,
    ]);
    expect((await service(after).get(sub.subject, id)).id).to.equal(id);
    await Promise.all([before.close(1000), after.close(1000)]);
  });

  it('the price rule changed between the accepted call (enqueue failed) and its retry: the job is made with the accepted cost', async () => {
    const queue = queueWith(1);
    const jobs = service(queue);
    queue.failNext = true;
    const first = { ...submission('repriced'), cost: 2 };
    await jobs.submit(first).catch(() => undefined);
    const retry = await jobs.submit({ ...first, cost: 6 });
    expect(retry.replayed).to.equal(true);
    expect(retry.job.cost).to.equal(2);
    expect((await service(queue).get(first.subject, retry.job.id)).cost).to.equal(2);
    expect(await new RedisLedgerStore(store.client, keys, store.guard).usage(first.subject)).to.deep.equal({
      jobs_charged: 1,
      credits_spent: 2,
      credits_refunded: 0,
    });
    await queue.close(1000);
  });
});
