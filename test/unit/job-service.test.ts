import { expect } from 'chai';
import { deriveKeys } from '../../shared/auth/derived-keys';
import { StoredJobIdKey } from '../../shared/jobs/job-id-key';
import { MemoryJobIdKeyStore } from '../../shared/memory/memory-job-id-key-store';
import type { JobRecord, NewJob } from '../../shared/jobs/job';
import { fingerprint, JobService } from '../../shared/jobs/job-service';
import { MemoryJobQueue } from '../../shared/memory/memory-job-queue';
import { MemoryLedgerStore } from '../../shared/memory/memory-ledger-store';

/** An in-memory queue that counts its enqueues; its processor never finishes, so jobs stay put. */
class CountingQueue extends MemoryJobQueue {
  enqueued: string[] = [];
  reads = 0;
  /** How many of the next reads fail, as they would while Redis is away. */
  failingReads = 0;
  override async get(id: string): Promise<JobRecord | undefined> {
    this.reads += 1;
    if (this.failingReads > 0) {
      this.failingReads -= 1;
      throw new Error('redis is not connected');
    }
    return super.get(id);
  }
  override async enqueue(job: NewJob, options?: { replaceFinished?: boolean }): Promise<JobRecord | undefined> {
    this.enqueued.push(job.id);
    return super.enqueue(job, options);
  }
}

describe('job submission (JobService on the memory stores)', () => {
  const submission = { subject: 'alice', operation: 'createJob', input: { prompt: 'hello' }, cost: 1, idempotencyKey: 'key-1' };
  let ledger: MemoryLedgerStore;
  let queue: CountingQueue;
  let jobs: JobService;

  beforeEach(() => {
    ledger = new MemoryLedgerStore();
    queue = new CountingQueue({ processors: new Map([['createJob', () => new Promise(() => undefined)]]), concurrency: 1, attempts: 1, backoffMs: 0, retentionMs: 60_000 });
    jobs = new JobService(ledger, queue, new StoredJobIdKey(new MemoryJobIdKeyStore(), deriveKeys('s'.repeat(32)).jobIdKey), 60);
  });

  it('a replay whose job is stored answers that job without enqueueing it again', async () => {
    const first = await jobs.submit(submission);
    const again = await jobs.submit(submission);
    expect(again.replayed).to.equal(true);
    expect(again.job.id).to.equal(first.job.id);
    expect(queue.enqueued).to.deep.equal([first.job.id]);
  });

  it('a replay whose job is missing (charged, then died before enqueueing) enqueues it once and charges nothing more', async () => {
    const jobId = await jobs.jobIdFor(submission.subject, submission.idempotencyKey);
    // The first attempt: the claim charged, and the process died before it enqueued.
    const claimed = await ledger.claim({ subject: 'alice', key: 'key-1', fingerprint: fingerprint('createJob', submission.input), jobId, operation: 'createJob', cost: 1, ttlSeconds: 60 });
    expect(claimed).to.equal('created');
    expect(await queue.get(jobId)).to.equal(undefined);

    const retry = await jobs.submit(submission);
    expect(retry.replayed).to.equal(true);
    expect(retry.job.id).to.equal(jobId);
    expect(queue.enqueued).to.deep.equal([jobId]);
    expect((await queue.get(jobId))?.input).to.deep.equal({ prompt: 'hello' });
    expect((await ledger.usage('alice')).jobs_charged).to.equal(1);
  });

  it('a replay reads its job without waiting for the claim to answer, and reads it only once', async () => {
    await jobs.submit(submission);
    const claim = ledger.claim.bind(ledger);
    let readsWhileClaiming = -1;
    ledger.claim = async (request) => {
      const outcome = await claim(request);
      // The claim has not answered the service yet: the read must already be on its way.
      readsWhileClaiming = queue.reads;
      return outcome;
    };
    const readsBefore = queue.reads;
    const again = await jobs.submit(submission);
    expect(again.replayed).to.equal(true);
    expect(readsWhileClaiming).to.equal(readsBefore + 1);
    expect(queue.reads).to.equal(readsBefore + 1);
  });

  it('a new job ignores the early read, even when that read fails: it is enqueued and answered', async () => {
    queue.failingReads = 1;
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const created = await jobs.submit({ ...submission, idempotencyKey: 'key-new' });
      expect(created.replayed).to.equal(false);
      expect(queue.enqueued).to.deep.equal([created.job.id]);
      // Let a stray rejection surface if the early read's failure were left unhandled.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).to.deep.equal([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('a replay whose early read fails fails with it (the caller retries), and charges nothing more', async () => {
    await jobs.submit(submission);
    queue.failingReads = 1;
    let failure: unknown;
    await jobs.submit(submission).catch((error: unknown) => (failure = error));
    expect(String(failure)).to.contain('redis is not connected');
    expect((await ledger.usage('alice')).jobs_charged).to.equal(1);
  });
});
