import { expect } from 'chai';
import { MemoryJobIdKeyStore } from '../../shared/adapters/memory/memory-job-id-key-store';
import { MemoryJobQueue } from '../../shared/adapters/memory/memory-job-queue';
import { MemoryLedgerStore } from '../../shared/adapters/memory/memory-ledger-store';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import { StoredJobIdKey } from '../../shared/domain/jobs/job-id-key';
import { JobLifecycle } from '../../shared/domain/jobs/job-lifecycle';
import type { JobQueue } from '../../shared/domain/jobs/job-queue';
import { JobService } from '../../shared/domain/jobs/job-service';
import { meteredMoney } from '../../shared/domain/jobs/job-settlement';
import type { ProcessorMap } from '../../shared/domain/jobs/processor';
import type { LedgerStore } from '../../shared/domain/ledger/ledger-store';
import { singleNodeConnection } from '../../shared/platform/config/redis-settings';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { createJobWorker } from '../../worker/job-worker';
import { BACKENDS, type BackendKind } from '../support/backends';
import { connectStoreClient, queueOn, quietLogger } from '../support/redis-fixture';
import { startRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

/** One second of idempotency retention, so a test can outlive a key; finished jobs are kept far longer. */
const RETENTION_SECONDS = 1;

interface Rig {
  ledger: LedgerStore;
  queue: JobQueue;
  runs: () => number;
  close(): Promise<void>;
}

async function rig(kind: BackendKind): Promise<Rig> {
  let runs = 0;
  const processors: ProcessorMap = new Map([
    ['createJob', async (input: Record<string, unknown>) => ({ echo: input.prompt, run: ++runs })],
  ]);
  if (kind === 'memory') {
    const queue = new MemoryJobQueue({
      lifecycle: new JobLifecycle({ processors }),
      concurrency: 2,
      attempts: 1,
      backoffMs: 0,
      retentionMs: 3_600_000,
    });
    return { ledger: new MemoryLedgerStore(), queue, runs: () => runs, close: () => queue.close(1000) };
  }
  const redis = await startRedis();
  const store = await connectStoreClient(redis.url, 'exp:');
  const queue = queueOn(store, {
    attempts: 1,
    backoffMs: 0,
  });
  const worker = createJobWorker({
    config: {
      redis: singleNodeConnection(redis.url),
      jobQueueShards: 1,
      redisKeyPrefix: 'exp:',
      redisCommandTimeoutMs: 1000,
      idempotencyTtlSeconds: 3600,
      workerConcurrency: 2,
      jobLockMs: 5000,
      jobStalledIntervalMs: 5000,
    },
    processors,
    policies: new Map(),
    metrics: new Metrics({ defaultMetrics: false }),
    logger: quietLogger,
  });
  return {
    ledger: new RedisLedgerStore(store.client, store.keys, store.guard),
    queue,
    runs: () => runs,
    close: async () => {
      await worker.close(1000);
      await queue.close(1000);
      await store.close();
      await redis.stop();
    },
  };
}

for (const backend of BACKENDS) {
  describe(`an idempotency key reused after its record expired [${backend}]`, () => {
    let r: Rig;
    let jobs: JobService;
    before(async () => {
      r = await rig(backend);
      jobs = new JobService({
        ledger: r.ledger,
        queue: r.queue,
        lifecycle: new JobLifecycle({ money: meteredMoney((refund) => r.ledger.refund(refund), RETENTION_SECONDS) }),
        jobIdKey: new StoredJobIdKey(new MemoryJobIdKeyStore(), deriveKeys('expired-key-test-secret-0123456789abcdef').jobIdKey),
        retentionSeconds: RETENTION_SECONDS,
      });
    });
    after(async () => r.close());

    const submission = { subject: 'alice', operation: 'createJob', input: { prompt: 'again' }, cost: 1, idempotencyKey: 'reused' };
    const finished = (id: string) =>
      waitFor(
        async () => {
          const job = await r.queue.get(id);
          return job?.status === 'succeeded' ? job : undefined;
        },
        { what: 'the job to succeed' },
      );

    it('starts a new run of the job it charges for, instead of answering with the old finished one', async () => {
      const first = await jobs.submit(submission);
      const firstDone = await finished(first.job.id);
      expect(r.runs()).to.equal(1);

      // Until the record expires every submission is a free replay; the first one after it is a new job.
      const second = await waitFor(
        async () => {
          const attempt = await jobs.submit(submission);
          return attempt.replayed ? undefined : attempt;
        },
        { timeoutMs: 5000, what: 'the idempotency record to expire' },
      );
      expect(second.job.id).to.equal(first.job.id);
      expect(Date.parse(second.job.created_at)).to.be.greaterThan(Date.parse(firstDone.finished_at!));
      const secondDone = await finished(second.job.id);
      expect(secondDone.result).to.deep.equal({ echo: 'again', run: 2 });
      expect(r.runs()).to.equal(2);
      expect(await r.ledger.usage('alice')).to.deep.equal({ jobs_charged: 2, credits_spent: 2, credits_refunded: 0 });
    });

    it("the subject's job index holds that job once", async () => {
      const page = await jobs.list('alice', 10);
      expect(page.items.map((job) => job.id)).to.have.length(1);
    });

    it('pruning drops an index entry only once its record has expired', async () => {
      const claim = {
        subject: 'bob',
        key: 'k',
        fingerprint: 'f',
        jobId: 'job_prunecheck',
        operation: 'createJob',
        cost: 1,
        ttlSeconds: RETENTION_SECONDS,
      };
      expect((await r.ledger.claim(claim)).outcome).to.equal('created');
      await r.ledger.pruneJobs('bob', ['job_prunecheck']);
      expect((await r.ledger.listJobIds('bob', { limit: 10 })).map((item) => item.value)).to.deep.equal(['job_prunecheck']);
      await waitFor(
        async () => {
          await r.ledger.pruneJobs('bob', ['job_prunecheck']);
          return (await r.ledger.listJobIds('bob', { limit: 10 })).length === 0;
        },
        { timeoutMs: 5000, what: 'the entry to be pruned' },
      );
    });
  });
}
