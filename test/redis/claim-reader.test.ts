import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { BullmqJobQueue } from '../../shared/adapters/redis/bullmq-job-queue';
import { RedisAdmissionStore } from '../../shared/adapters/redis/redis-admission-store';
import { RedisClaimReader } from '../../shared/adapters/redis/redis-claim-reader';
import { RedisConnectionStore } from '../../shared/adapters/redis/redis-connection-store';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import type { ClaimAdmissionRequest } from '../../shared/domain/admission/admission-store';
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
  let connections: RedisConnectionStore;

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'cr:');
    ledger = new RedisLedgerStore(store.client, store.keys, store.guard);
    queue = queueOn(store, {
      attempts: 1,
      backoffMs: 100,
      shards: 3,
    });
    reader = new RedisClaimReader(store.client, {
      ledger,
      queue,
      admissions: new RedisAdmissionStore(store.client, store.keys, store.guard),
    });
    connections = new RedisConnectionStore(store.client, store.keys, store.guard);
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

  /** A live connection of the claim's subject, and the admission of a request made with it. */
  async function admissionFor(claim: ShardedClaim, quota = 10): Promise<ClaimAdmissionRequest> {
    const id = `conn_${randomBytes(6).toString('hex')}`;
    const now = Math.floor(Date.now() / 1000);
    await connections.create({ id, subject: claim.subject, issuedAt: now, expiresAt: now + 3600, revoked: false });
    return { connectionId: id, subject: claim.subject, rateKey: `sub:${claim.subject}`, windowSeconds: 60, quota };
  }

  it('with an admission of a live connection: admitted (the window hit once, the use recorded), then the same claim as without it', async () => {
    const claim = request(2);
    const plain = { ...request(2), acceptedAt: claim.acceptedAt };
    const admission = await admissionFor(claim);
    const before = Math.floor(Date.now() / 1000);
    const answered = await reader.admitClaimAndRead(claim, admission);
    expect((await connections.get(admission.connectionId))?.lastUsedAt).to.be.at.least(before);
    expect(answered.admission).to.deep.include({ outcome: 'admitted' });
    expect(answered.admission.outcome === 'admitted' && answered.admission.window.count).to.equal(1);
    expect(answered.read).to.deep.equal({ claim: await ledger.claim(plain), job: undefined });
    const replay = await reader.admitClaimAndRead(claim, admission);
    expect(replay.admission.outcome === 'admitted' && replay.admission.window.count, 'each call hits the window').to.equal(2);
    expect(replay.read?.claim.outcome).to.equal('replayed');
    expect(await ledger.usage(claim.subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 2, credits_refunded: 0 });
  });

  it('with an admission of a revoked connection: revoked, nothing claimed, the window not hit', async () => {
    const claim = request(0);
    const admission = await admissionFor(claim);
    await connections.revoke(admission.connectionId);
    expect(await reader.admitClaimAndRead(claim, admission)).to.deep.equal({ admission: { outcome: 'revoked' } });
    expect(await ledger.isClaimed(claim.subject, claim.jobId)).to.equal(false);
    const live = await admissionFor(claim);
    const next = await reader.admitClaimAndRead(claim, live);
    expect(next.admission.outcome === 'admitted' && next.admission.window.count, "the next hit is the window's first").to.equal(1);
  });

  it('with an admission beyond its quota: admitted with the count past it, and nothing claimed or charged', async () => {
    const first = request(1);
    const admission = await admissionFor(first, 1);
    expect((await reader.admitClaimAndRead(first, admission)).read?.claim.outcome).to.equal('created');
    const second = request(1, { subject: first.subject });
    const refused = await reader.admitClaimAndRead(second, admission);
    expect(refused.read).to.equal(undefined);
    expect(refused.admission.outcome === 'admitted' && refused.admission.window.count).to.equal(2);
    expect(await ledger.isClaimed(second.subject, second.jobId)).to.equal(false);
    expect((await ledger.usage(first.subject)).jobs_charged).to.equal(1);
  });

  it('a claim that holds, beyond its quota: refused by the admission on its own, with no hold indexed for the sweep', async () => {
    const first = request(0);
    const admission = await admissionFor(first, 0);
    const refused = await reader.admitClaimAndRead({ ...first, hold: {} }, admission);
    expect(refused.read).to.equal(undefined);
    expect(refused.admission.outcome === 'admitted' && refused.admission.window.count).to.equal(1);
    expect(await ledger.isClaimed(first.subject, first.jobId)).to.equal(false);
    const due = await ledger.dueHolds(Number.MAX_SAFE_INTEGER, 1000);
    expect(due.map((hold) => hold.jobId)).to.not.include(first.jobId);
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
