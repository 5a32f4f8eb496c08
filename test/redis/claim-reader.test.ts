import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { BullmqJobQueue } from '../../shared/adapters/redis/bullmq-job-queue';
import { RedisClaimReader } from '../../shared/adapters/redis/redis-claim-reader';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import type { ClaimRequest } from '../../shared/domain/ledger/ledger-store';
import { newJob } from '../support/new-job';
import { connectStoreClient, queueOn, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';

type ShardedClaim = ClaimRequest & { shard: number };

/** A claim of a fresh key by a fresh subject, for a new job on `shard`. */
function request(shard: number, overrides: Partial<ClaimRequest> = {}): ShardedClaim {
  return {
    subject: `subject-${randomBytes(4).toString('hex')}`,
    key: `key-${randomBytes(4).toString('hex')}`,
    fingerprint: 'fp-a',
    jobId: `job_${randomBytes(24).toString('base64url').slice(0, 32)}`,
    operation: 'createJob',
    cost: 2,
    ttlSeconds: 3600,
    acceptedAt: new Date().toISOString(),
    ...overrides,
    shard,
  };
}

describe('RedisClaimReader (the claim and its job’s read in one script) on a private redis-server', () => {
  let redis: TestRedis;
  let store: StoreClient;
  let ledger: RedisLedgerStore;
  let queue: BullmqJobQueue;
  let reader: RedisClaimReader;

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'cr:');
    ledger = new RedisLedgerStore(store.client, store.keys, store.guard);
    queue = queueOn(store, {
      attempts: 1,
      backoffMs: 100,
      shards: 3,
    });
    reader = new RedisClaimReader(store.client, ledger, queue);
  });
  after(async () => {
    await queue?.close(1000);
    await store?.close();
    await redis?.stop();
  });

  /** Enqueues the claimed job on the claim's shard, as the job service does after a `created` claim. */
  async function enqueue(claim: ShardedClaim): Promise<void> {
    const job = newJob({ id: claim.jobId, subject: claim.subject, cost: claim.cost, createdAt: claim.acceptedAt! });
    await queue.enqueue(job, { shard: claim.shard });
  }

  it('a fresh key answers the ledger’s own claim (created on its shard) with no job, and charges as that claim does', async () => {
    const read = request(2);
    const plain = { ...request(2), acceptedAt: read.acceptedAt };
    const answered = await reader.claimAndRead(read);
    expect(answered).to.deep.equal({ claim: await ledger.claim(plain), job: undefined });
    expect(answered.claim).to.deep.equal({ outcome: 'created', shard: 2 });
    expect(await ledger.usage(read.subject)).to.deep.equal(await ledger.usage(plain.subject));
    expect(await ledger.usage(read.subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 2, credits_refunded: 0 });
  });

  it('a replay of an enqueued job answers replayed with the job exactly as the queue reads it, charging nothing more', async () => {
    const claim = request(1);
    await reader.claimAndRead(claim);
    await enqueue(claim);
    const again = await reader.claimAndRead({ ...claim, acceptedAt: new Date().toISOString() });
    expect(again.claim).to.deep.include({ outcome: 'replayed', shard: 1 });
    expect(again.claim.accepted).to.deep.equal({ cost: 2, at: claim.acceptedAt });
    expect(again.job, 'the job is read').to.not.equal(undefined);
    expect(again.job).to.deep.equal(await queue.get(claim.jobId, 1));
    expect(await ledger.usage(claim.subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 2, credits_refunded: 0 });
  });

  it('a replay whose job was never enqueued answers replayed with no job (the job service then repairs it)', async () => {
    const claim = request(0);
    await reader.claimAndRead(claim);
    const again = await reader.claimAndRead(claim);
    expect(again.claim.outcome).to.equal('replayed');
    expect(again.job).to.equal(undefined);
  });

  it('a key used again with another payload answers conflict, charges nothing more, and still reads the job', async () => {
    const claim = request(0);
    await reader.claimAndRead(claim);
    await enqueue(claim);
    const other = await reader.claimAndRead({ ...claim, fingerprint: 'fp-b' });
    expect(other.claim).to.deep.equal({ outcome: 'conflict', shard: 0 });
    expect(other.job?.id).to.equal(claim.jobId);
    expect((await ledger.usage(claim.subject)).jobs_charged).to.equal(1);
  });

  it('a grant id that names another body answers grant_conflict before any script, with no job', async () => {
    const first = request(0);
    const used = { subject: first.subject, grantId: `grant-${randomBytes(4).toString('hex')}`, credits: 5, fingerprint: 'body-a' };
    expect((await reader.claimAndRead({ ...first, hold: { grant: used } })).claim.outcome).to.equal('created');
    const second = request(0, { subject: first.subject });
    const answered = await reader.claimAndRead({ ...second, hold: { grant: { ...used, fingerprint: 'body-b' } } });
    expect(answered).to.deep.equal({ claim: { outcome: 'grant_conflict', shard: 0 }, job: undefined });
    expect(await ledger.isClaimed(second.subject, second.jobId)).to.equal(false);
  });

  it('100 concurrent claims of one key give exactly one created and one charge; every replay reads the same job', async () => {
    const claim = request(1);
    const answers = await Promise.all(Array.from({ length: 100 }, () => reader.claimAndRead(claim)));
    expect(answers.filter((a) => a.claim.outcome === 'created')).to.have.length(1);
    expect(answers.filter((a) => a.claim.outcome === 'replayed')).to.have.length(99);
    expect(await ledger.usage(claim.subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 2, credits_refunded: 0 });
    await enqueue(claim);
    const replays = await Promise.all(Array.from({ length: 10 }, () => reader.claimAndRead(claim)));
    const stored = await queue.get(claim.jobId, 1);
    expect(stored?.id).to.equal(claim.jobId);
    for (const replay of replays) expect(replay.job).to.deep.equal(stored);
  });
});
