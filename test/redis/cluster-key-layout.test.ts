import { randomBytes } from 'node:crypto';
import { Worker } from 'bullmq';
import { expect } from 'chai';
import generateSlot from 'cluster-key-slot';
import { RedisConnectionStore } from '../../shared/adapters/redis/redis-connection-store';
import { RedisCreditStore } from '../../shared/adapters/redis/redis-credit-store';
import { RedisJobIdKeyStore } from '../../shared/adapters/redis/redis-job-id-key-store';
import { RedisKeys } from '../../shared/adapters/redis/redis-keys';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import { RedisOAuthStateStore } from '../../shared/adapters/redis/redis-oauth-state-store';
import { RedisRateLimitStore } from '../../shared/adapters/redis/redis-rate-limit-store';
import { RedisThingStore } from '../../shared/adapters/redis/redis-thing-store';
import { SequentialAdmissionStore } from '../../shared/adapters/sequential-admission-store';
import { newRepairMark } from '../../shared/domain/ledger/repair-mark';
import { grantOf } from '../support/credit-store-contract';
import { connectStoreClient, monitorCommands, queueOn, type StoreClient } from '../support/redis-fixture';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

/** Commands whose every argument after the name is a key. */
const ALL_KEYS = new Set(['del', 'unlink', 'exists', 'mget', 'touch', 'watch', 'sinter', 'sunion', 'sdiff']);
/** Commands whose first two arguments are keys. */
const TWO_KEYS = new Set(['rename', 'renamenx', 'smove', 'rpoplpush', 'lmove', 'copy']);
/** Blocking pops: keys, then a timeout. */
const BLOCKING = new Set(['blpop', 'brpop', 'bzpopmin', 'bzpopmax']);

/** The keys one command names, as far as this layout check needs them (single-key commands name one). */
function keysOf(args: string[]): string[] {
  const [name, ...rest] = args;
  if (name === 'eval' || name === 'evalsha' || name === 'fcall') return rest.slice(2, 2 + Number(rest[1]));
  if (ALL_KEYS.has(name)) return rest;
  if (TWO_KEYS.has(name)) return rest.slice(0, 2);
  if (BLOCKING.has(name)) return rest.slice(0, -1);
  return rest.length > 0 ? [rest[0]] : [];
}

const NO_KEY = new Set([
  'multi',
  'exec',
  'discard',
  'ping',
  'info',
  'client',
  'select',
  'script',
  'monitor',
  'hello',
  'auth',
  'config',
  'quit',
  'wait',
  'readonly',
  'cluster',
]);

describe('key layout on a cluster: every script, transaction and multi-key command touches one hash slot', () => {
  let redis: TestRedis;
  let store: StoreClient;
  const seen: Array<{ keys: string[]; what: string }> = [];
  let stopMonitor: () => Promise<void>;

  before(async () => {
    redis = await startRedis();
    store = await connectStoreClient(redis.url, 'kl:');
    // Each connection's MULTI … EXEC is one transaction; MONITOR lists the commands of its connection in order.
    let transaction: string[] | undefined;
    stopMonitor = await monitorCommands(redis.url, (args) => {
      const [name] = args;
      if (name === 'multi') transaction = [];
      else if (name === 'exec') {
        if (transaction && transaction.length > 0) seen.push({ keys: transaction, what: 'MULTI' });
        transaction = undefined;
      } else if (!NO_KEY.has(name)) {
        const keys = keysOf(args);
        if (transaction) transaction.push(...keys);
        else if (keys.length > 1) seen.push({ keys, what: args.slice(0, 2).join(' ') });
      }
    });
  });
  after(async () => {
    await stopMonitor?.();
    await store?.close();
    await redis?.stop();
  });

  it('every store operation and the BullMQ producer and consumer, on the cluster layout of 3 shards, stay within one slot per call', async () => {
    const keys = new RedisKeys('kl:', true);
    const { client, guard } = store;
    const connections = new RedisConnectionStore(client, keys, guard);
    const ledger = new RedisLedgerStore(client, keys, guard);
    const rateLimits = new RedisRateLimitStore(client, keys, guard);
    const things = new RedisThingStore(client, keys, guard);
    const oauth = new RedisOAuthStateStore(client, keys, guard);
    const credits = new RedisCreditStore(client, keys, guard);
    const admissions = new SequentialAdmissionStore({ connections, rateLimits, ledger, credits });
    const queue = queueOn(
      { client, keys, guard },
      {
        attempts: 2,
        backoffMs: 10,
        retentionSeconds: 600,
        shards: 3,
        durability: { minReplicas: 0, waitMs: 100 },
      },
    );
    const subject = `layout-${randomBytes(4).toString('hex')}@example.com`;
    const now = Math.floor(Date.now() / 1000);
    const connectionId = `conn_${randomBytes(8).toString('hex')}`;

    await connections.create({ id: connectionId, subject, issuedAt: now, expiresAt: now + 600, revoked: false });
    expect(
      await admissions.admitBearer({ connectionId, subject, rateKey: `sub:${subject}`, windowSeconds: 60, usageDay: '2026-11-24' }),
    ).to.have.property('outcome', 'admitted');
    expect((await credits.grant(grantOf(subject, 5, undefined, 'layout'))).outcome).to.equal('created');
    const hold = { subject, jobId: 'job_held', credits: 2, at: new Date().toISOString(), lowThreshold: 4 };
    expect((await credits.hold(hold)).outcome).to.equal('held');
    expect((await credits.capture({ subject, jobId: hold.jobId, credits: 1, ttlSeconds: 60 })).outcome).to.equal('settled');
    expect((await credits.release({ subject, jobId: hold.jobId, ttlSeconds: 60 })).outcome).to.equal('already');
    expect(await credits.account(subject)).to.deep.equal({ balance: 4, held: 0 });
    expect(await credits.entries(subject, { limit: 10 })).to.have.length(4);
    const expiring = { ...grantOf(subject, 3), expiresAt: new Date(Date.now() + 60_000).toISOString() };
    expect((await credits.grant(expiring)).outcome).to.equal('created');
    expect((await credits.expire({ subject, grantId: expiring.grantId })).credits).to.equal(0);
    const voided = await credits.voidGrant({ subject, grantId: expiring.grantId, voidId: 'void_layout', fingerprint: 'f' });
    expect(voided.outcome).to.equal('created');
    await credits.dueGrants(Date.now(), 10);
    expect((await credits.subjects(10)).subjects).to.include(subject);
    expect((await credits.totals(subject)).voided).to.equal(3);
    const orphan = { subject, jobId: 'job_orphan', at: new Date().toISOString() };
    await ledger.dueHolds(Date.now(), 10);
    expect(await ledger.releaseOrphan({ ...orphan, ttlSeconds: 60 })).to.equal(0);
    expect(await ledger.markRepair({ ...orphan, mark: newRepairMark(), ttlSeconds: 60 })).to.equal(false);
    expect(await ledger.repairMarkOf(orphan)).to.equal(undefined);
    await things.add(subject, { id: 'thing_1', name: 'n', notes: null, created_at: new Date().toISOString() } as never);
    await things.list(subject, { limit: 10 });
    const jobIds = Array.from({ length: 9 }, (_, i) => `job_layout${i}`);
    for (const jobId of jobIds) {
      const shard = queue.shardFor(jobId);
      const claim = await ledger.claim({
        subject,
        key: jobId,
        fingerprint: `fp${jobId}`,
        jobId,
        operation: 'createJob',
        cost: 1,
        ttlSeconds: 600,
        shard,
        dailyLimit: 100,
      });
      expect(claim).to.deep.equal({ outcome: 'created', shard });
      await queue.enqueue(
        { id: jobId, subject, operation: 'createJob', input: { prompt: 'p' }, cost: 1, createdAt: new Date().toISOString() },
        { shard },
      );
    }
    expect(new Set(jobIds.map((id) => queue.shardFor(id))).size).to.equal(3);
    await ledger.pruneJobs(subject, ['job_gone']);
    await ledger.listJobIds(subject, { limit: 10 });
    expect(
      (await ledger.spentOnDays(subject, [new Date().toISOString().slice(0, 10), '2000-01-01'])).reduce(
        (a, b) => a + b.charged - b.refunded,
        0,
      ),
    ).to.equal(9);
    // A claim funded by a settled x402 payment: its grant and its hold in the claim's one script.
    const funded = { subject, key: 'paid', fingerprint: 'fp', jobId: 'job_paid', operation: 'createJob', cost: 2, ttlSeconds: 600 };
    const paid = await ledger.claim({ ...funded, hold: { grant: grantOf(subject, 2, 'nonce_layout', 'x402 payment') } });
    expect(paid.outcome).to.equal('created');
    await connections.touch(connectionId, now + 120);
    expect((await connections.list(subject)).map((c) => c.lastUsedAt)).to.deep.equal([now + 120]);
    await oauth.put('code', 'c1', 'v', 60);
    await oauth.consume('code', 'c1');
    expect(await oauth.registerClient('cl1', 'v', { ttlSeconds: 60, cap: 1, keepAfterGrantSeconds: 60 })).to.deep.equal({
      registered: true,
      evicted: 0,
    });
    expect(await oauth.registerClient('cl2', 'v', { ttlSeconds: 60, cap: 1, keepAfterGrantSeconds: 60 })).to.deep.equal({
      registered: true,
      evicted: 1,
    });
    expect(await oauth.recordClientGrant('cl2', 'v', Date.now() + 60_000, 60)).to.equal(true);
    await rateLimits.hit('oauth:1:1.2.3.4', 60);
    await rateLimits.hit('authfail:1.2.3.4', 60);
    await new RedisJobIdKeyStore(client, keys, guard).load('k');
    await connections.revokeSubject(subject);
    await queue.counts();

    // The consumer side: BullMQ's own scripts on each shard's queue, run to completion.
    // BullMQ never closes a connection it was handed: each is ended here once its worker has closed, or it
    // would reconnect (and report refused connections) for the rest of the run after this file's server stops.
    const workerClients = [0, 1, 2].map(() => client.duplicate({ maxRetriesPerRequest: null }));
    const workers = workerClients.map(
      (connection, shard) => new Worker(keys.jobQueueName(shard), async () => ({ ok: true }), { connection, prefix: keys.bullPrefix }),
    );
    try {
      await waitFor(async () => (await Promise.all(jobIds.map((id) => queue.get(id)))).every((job) => job?.status === 'succeeded'), {
        what: 'every job to succeed',
      });
    } finally {
      await Promise.all(workers.map((worker) => worker.close()));
      for (const workerClient of workerClients) workerClient.disconnect();
    }
    await queue.close(1000);
    await waitFor(() => seen.some((call) => call.what.startsWith('evalsha') && call.keys.length >= 6), {
      what: 'the claim script to be seen',
    });
    await waitFor(() => seen.some((call) => call.what.startsWith('mget')), { what: 'the usage read to be seen' });

    const crossing = seen.filter((call) => generateSlot.generateMulti(call.keys) < 0);
    expect(crossing.map((call) => `${call.what}: ${call.keys.join(' ')}`)).to.deep.equal([]);
    // Multi-key calls of ours and of BullMQ's were seen, so the check above had something to refuse.
    expect(seen.filter((call) => call.keys.some((key) => key.includes(':bull:'))).length).to.be.greaterThan(10);
    expect(seen.filter((call) => call.keys.some((key) => key.includes(':subj:'))).length).to.be.greaterThan(10);
    // The three shards' queues are three slots.
    expect(new Set([0, 1, 2].map((shard) => generateSlot(`${keys.bullPrefix}:${keys.jobQueueName(shard)}:wait`))).size).to.equal(3);
  });

  it('the same calls on the one-node layout would cross slots: the check is able to refuse', () => {
    const flat = new RedisKeys('kl:', false);
    const claimKeys = [flat.idempotency('s', 'job_1'), flat.subjectUsage('s')];
    expect(generateSlot.generateMulti(claimKeys)).to.equal(-1);
    const tagged = new RedisKeys('kl:', true);
    expect(
      generateSlot.generateMulti([
        tagged.idempotency('s', 'job_1'),
        tagged.subjectUsage('s'),
        tagged.subjectJobs('s'),
        tagged.subjectSequence('s'),
        tagged.subjectDailySpend('s', '2026-11-24'),
        tagged.subjectSpendHistory('s'),
      ]),
    ).to.be.at.least(0);
    expect(generateSlot.generateMulti([flat.subjectDailySpend('s', '2026-11-24'), flat.subjectDailySpend('s', '2026-11-23')])).to.equal(-1);
  });
});
