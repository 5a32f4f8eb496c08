import { expect } from 'chai';
import { MemoryCreditStore } from '../../../../../shared/adapters/memory/memory-credit-store';
import { MemoryJobIdKeyStore } from '../../../../../shared/adapters/memory/memory-job-id-key-store';
import { MemoryJobQueue } from '../../../../../shared/adapters/memory/memory-job-queue';
import { MemoryLedgerStore } from '../../../../../shared/adapters/memory/memory-ledger-store';
import type { AdmissionAlong, BearerAdmission, ClaimAdmissionRequest } from '../../../../../shared/domain/admission/admission-store';
import { type ClaimReader, claimsBeside } from '../../../../../shared/domain/jobs/claim-reader';
import { HoldSweeper } from '../../../../../shared/domain/jobs/hold-sweeper';
import { fingerprint } from '../../../../../shared/domain/jobs/idempotency';
import type { JobRecord, NewJob } from '../../../../../shared/domain/jobs/job';
import { StoredJobIdKey } from '../../../../../shared/domain/jobs/job-id-key';
import { JobLifecycle } from '../../../../../shared/domain/jobs/job-lifecycle';
import type { EnqueueOptions } from '../../../../../shared/domain/jobs/job-queue';
import { JobService, type JobServiceDeps } from '../../../../../shared/domain/jobs/job-service';
import { meteredMoney } from '../../../../../shared/domain/jobs/job-settlement';
import type { ClaimGrant, RepairRequest } from '../../../../../shared/domain/ledger/ledger-store';
import {
  IdempotencyConflictError,
  OperationBudgetError,
  PriceExceedsOperationLimitError,
} from '../../../../../shared/platform/errors/problems';
import { deriveKeys } from '../../../../../shared/platform/secrets/derived-keys';
import { allEntries, grantOf } from '../../../../support/credit-store-contract';

/**
 * An in-memory queue that counts its enqueues and records the service's calls in order (`get` calls the queue
 * makes inside its own `enqueue` are not the service's); its processor never finishes, so jobs stay put.
 */
class CountingQueue extends MemoryJobQueue {
  enqueued: string[] = [];
  calls: string[] = [];
  private inEnqueue = false;
  override async enqueue(job: NewJob, options?: EnqueueOptions): Promise<JobRecord | undefined> {
    this.enqueued.push(job.id);
    this.calls.push(options?.absent ? 'enqueue absent' : 'enqueue');
    this.inEnqueue = true;
    try {
      return await super.enqueue(job, options);
    } finally {
      this.inEnqueue = false;
    }
  }
  override async get(id: string): Promise<JobRecord | undefined> {
    if (!this.inEnqueue) this.calls.push('get');
    return super.get(id);
  }
}

/**
 * A job service on the memory stores given, keeping keys a minute and refunding through the ledger, as the
 * backends' lifecycles do in metered billing; `more` adds or replaces its other parts.
 */
function jobServiceOn(ledger: MemoryLedgerStore, queue: MemoryJobQueue, more: Partial<JobServiceDeps> = {}): JobService {
  return new JobService({
    ledger,
    queue,
    lifecycle: new JobLifecycle({ money: meteredMoney((refund) => ledger.refund(refund), 60) }),
    jobIdKey: new StoredJobIdKey(new MemoryJobIdKeyStore(), deriveKeys('s'.repeat(32)).jobIdKey),
    retentionSeconds: 60,
    ...more,
  });
}

/** The admission a put-off bearer call hands its claim. */
const ALONG: ClaimAdmissionRequest = { connectionId: 'conn-1', subject: 'alice', rateKey: 'sub:alice', windowSeconds: 60, quota: 5 };

describe('job submission (JobService on the memory stores)', () => {
  const submission = { subject: 'alice', operation: 'createJob', input: { prompt: 'hello' }, cost: 1, idempotencyKey: 'key-1' };
  let ledger: MemoryLedgerStore;
  let queue: CountingQueue;
  let jobs: JobService;

  beforeEach(() => {
    ledger = new MemoryLedgerStore();
    queue = new CountingQueue({
      lifecycle: new JobLifecycle({ processors: new Map([['createJob', () => new Promise(() => undefined)]]) }),
      concurrency: 1,
      attempts: 1,
      backoffMs: 0,
      retentionMs: 60_000,
    });
    jobs = jobServiceOn(ledger, queue);
  });

  it("an operation's own daily cap: jobs within it are accepted, the next is a 402 naming the operation, a replay is still answered, another operation runs", async () => {
    const capped = { ...submission, cost: 2, operationDailyLimit: 4 };
    const first = await jobs.submit({ ...capped, idempotencyKey: 'cap-1' });
    await jobs.submit({ ...capped, idempotencyKey: 'cap-2' });
    const refused = await jobs.submit({ ...capped, idempotencyKey: 'cap-3' }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(OperationBudgetError);
    expect((refused as OperationBudgetError).extensions).to.include({ operation: 'createJob', limit: 4 });
    expect((await jobs.submit({ ...capped, idempotencyKey: 'cap-1' })).job.id).to.equal(first.job.id);
    const elsewhere = await jobs.submit({ ...submission, operation: 'otherJob', cost: 2, idempotencyKey: 'cap-4' });
    expect(elsewhere.replayed).to.equal(false);
    expect(await ledger.usage('alice')).to.deep.equal({ jobs_charged: 3, credits_spent: 6, credits_refunded: 0 });
  });

  it("a job that costs more than its operation's whole daily cap is a 402 of its own, without Retry-After", async () => {
    const refused = await jobs.submit({ ...submission, cost: 5, operationDailyLimit: 4 }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(PriceExceedsOperationLimitError);
    expect((refused as PriceExceedsOperationLimitError).headers).to.deep.equal({});
  });

  it('a replay whose job is stored answers that job without enqueueing it again', async () => {
    const first = await jobs.submit(submission);
    const again = await jobs.submit(submission);
    expect(again.replayed).to.equal(true);
    expect(again.job.id).to.equal(first.job.id);
    expect(queue.enqueued).to.deep.equal([first.job.id]);
  });

  it('a fresh job is read once, beside its claim, then added as absent and not read back; its replay only reads', async () => {
    await jobs.submit(submission);
    expect(queue.calls).to.deep.equal(['get', 'enqueue absent']);
    queue.calls = [];
    await jobs.submit(submission);
    expect(queue.calls).to.deep.equal(['get']);
  });

  it('on a backend whose claims cannot admit: admitsWithClaim is false, and a submission carrying an admission is refused, nothing claimed', async () => {
    expect(jobs.admitsWithClaim).to.equal(false);
    const along: AdmissionAlong = { request: ALONG, settle: async () => undefined };
    const refused = await jobs.submit({ ...submission, admission: along }).catch((error: unknown) => error);
    expect(refused).to.be.instanceOf(Error);
    expect((await ledger.usage('alice')).jobs_charged).to.equal(0);
  });

  it('on a backend whose claims admit: the admission goes with the claim and is settled first; a refusal it throws claims nothing', async () => {
    const asked: ClaimAdmissionRequest[] = [];
    let outcome: BearerAdmission = { outcome: 'admitted', window: { count: 1, resetInSeconds: 60 } };
    const beside = claimsBeside(ledger, queue);
    const admitting: ClaimReader = {
      claimAndRead: beside.claimAndRead,
      admitClaimAndRead: async (request, admission) => {
        asked.push(admission);
        return outcome.outcome === 'admitted' ? { admission: outcome, read: await beside.claimAndRead(request) } : { admission: outcome };
      },
    };
    const admittingJobs = jobServiceOn(ledger, queue, { claimReader: admitting });
    expect(admittingJobs.admitsWithClaim).to.equal(true);
    const settled: BearerAdmission[] = [];
    const along = (refusal?: Error): AdmissionAlong => ({
      request: ALONG,
      settle: async (answer) => {
        settled.push(answer);
        if (refusal) throw refusal;
      },
    });
    expect((await admittingJobs.submit({ ...submission, admission: along() })).replayed).to.equal(false);
    expect(asked).to.deep.equal([ALONG]);
    expect(settled).to.deep.equal([outcome]);
    outcome = { outcome: 'revoked' };
    const revoked = new Error('revoked');
    const refused = await admittingJobs
      .submit({ ...submission, idempotencyKey: 'key-2', admission: along(revoked) })
      .catch((e: unknown) => e);
    expect(refused).to.equal(revoked);
    expect((await ledger.usage('alice')).jobs_charged, 'only the admitted job').to.equal(1);
  });

  it('a replay whose job is missing (charged, then died before enqueueing) enqueues it once and charges nothing more', async () => {
    const jobId = await jobs.jobIdFor(submission.subject, submission.idempotencyKey);
    // The first attempt: the claim charged, and the process died before it enqueued.
    const claimed = (
      await ledger.claim({
        subject: 'alice',
        key: 'key-1',
        fingerprint: fingerprint('createJob', submission.input),
        jobId,
        operation: 'createJob',
        cost: 1,
        ttlSeconds: 60,
      })
    ).outcome;
    expect(claimed).to.equal('created');
    expect(await queue.get(jobId)).to.equal(undefined);

    const retry = await jobs.submit(submission);
    expect(retry.replayed).to.equal(true);
    expect(retry.job.id).to.equal(jobId);
    expect(queue.enqueued).to.deep.equal([jobId]);
    expect((await queue.get(jobId))?.input).to.deep.equal({ prompt: 'hello' });
    expect((await ledger.usage('alice')).jobs_charged).to.equal(1);
  });

  it('a replay that enqueues its missing job uses the cost and time accepted with the key, not the price the replay computed', async () => {
    const jobId = await jobs.jobIdFor(submission.subject, submission.idempotencyKey);
    const acceptedAt = '2026-01-02T03:04:05.678Z';
    // Accepted at 2 credits; the process died before it enqueued. The price rule then changed to 5.
    await ledger.claim({
      subject: 'alice',
      key: 'key-1',
      fingerprint: fingerprint('createJob', submission.input),
      jobId,
      operation: 'createJob',
      cost: 2,
      ttlSeconds: 60,
      acceptedAt,
    });
    const retry = await jobs.submit({ ...submission, cost: 5 });
    expect(retry.replayed).to.equal(true);
    expect(retry.job).to.include({ id: jobId, cost: 2, created_at: acceptedAt });
    expect(await ledger.usage('alice')).to.deep.equal({ jobs_charged: 1, credits_spent: 2, credits_refunded: 0 });
  });
});

/** The memory ledger, with a step run just before a retry takes its repair mark: what a sweep landing there does. */
class InterleavedLedger extends MemoryLedgerStore {
  beforeMark: () => Promise<unknown> = async () => undefined;
  override async markRepair(request: RepairRequest): Promise<boolean> {
    await this.beforeMark();
    return super.markRepair(request);
  }
}

describe('job submission in prepaid billing: a retry of a key whose job was never enqueued (HOLD_ORPHAN_SECONDS=100)', () => {
  const submission = { subject: 'bob', operation: 'createJob', input: { prompt: 'hello' }, cost: 1, idempotencyKey: 'key-1' };
  let credits: MemoryCreditStore;
  let ledger: InterleavedLedger;
  let queue: CountingQueue;
  let jobs: JobService;
  let sweeper: HoldSweeper;

  /** The first attempt, `ageSeconds` ago: the claim held the price, and the submit died before it enqueued. */
  const diedAfterClaim = async (ageSeconds: number, cost = 1) => {
    const jobId = await jobs.jobIdFor(submission.subject, submission.idempotencyKey);
    const claim = await ledger.claim({
      subject: submission.subject,
      key: submission.idempotencyKey,
      fingerprint: fingerprint('createJob', submission.input),
      jobId,
      operation: 'createJob',
      cost,
      ttlSeconds: 600,
      hold: {},
      acceptedAt: new Date(Date.now() - ageSeconds * 1000).toISOString(),
    });
    expect(claim.outcome).to.equal('created');
    return jobId;
  };
  /**
   * The key's first attempt died after its claim, and before each of the retry's marks the sweep releases the
   * acceptance the retry replayed while another attempt claims the key again (and dies as well), so that the
   * retry's next claim is a replay of that one. (Each acceptance a second apart: one in the same millisecond
   * would be the same acceptance.)
   */
  const releasedBeforeEachMark = async () => {
    await diedAfterClaim(150);
    let age = 150;
    ledger.beforeMark = async () => {
      expect(await sweeper.sweep()).to.equal(1);
      await diedAfterClaim(++age);
    };
  };
  const entryKinds = async () => (await allEntries(credits, submission.subject)).map((entry) => [entry.kind, entry.reason]);

  beforeEach(() => {
    credits = new MemoryCreditStore();
    ledger = new InterleavedLedger(credits);
    queue = new CountingQueue({
      lifecycle: new JobLifecycle({ processors: new Map([['createJob', () => new Promise(() => undefined)]]) }),
      concurrency: 1,
      attempts: 1,
      backoffMs: 0,
      retentionMs: 60_000,
    });
    jobs = jobServiceOn(ledger, queue, { billing: { prepaid: true, topUpUrl: '', orphanSeconds: 100, recordLow: async () => {} } });
    sweeper = new HoldSweeper({ ledger, jobs: queue, orphanSeconds: 100, retentionSeconds: 60 });
  });

  for (const age of [10, 60, 150]) {
    it(`${age} s after the claim, enqueues its job under the hold the first attempt took, marked so that the sweep leaves it`, async () => {
      expect((await credits.grant(grantOf(submission.subject, 5))).outcome).to.equal('created');
      const jobId = await diedAfterClaim(age);
      const retry = await jobs.submit(submission);
      expect(retry.replayed).to.equal(true);
      expect(retry.job.id).to.equal(jobId);
      expect(queue.enqueued).to.deep.equal([jobId]);
      expect(await ledger.repairMarkOf({ subject: submission.subject, jobId, at: retry.job.created_at })).to.be.a('string');
      expect(await sweeper.sweep()).to.equal(0);
      expect(await credits.account(submission.subject)).to.include({ balance: 4, held: 1 });
      expect(await entryKinds()).to.deep.equal([
        ['hold', undefined],
        ['grant', undefined],
      ]);
    });
  }

  it('a sweep that lands between its claim and its mark releases the hold; the retry then claims afresh and holds again for the job it enqueues', async () => {
    expect((await credits.grant(grantOf(submission.subject, 5))).outcome).to.equal('created');
    const jobId = await diedAfterClaim(150);
    ledger.beforeMark = () => sweeper.sweep();
    const retry = await jobs.submit(submission);
    expect(retry.replayed, 'a fresh submit').to.equal(false);
    expect(retry.job.id).to.equal(jobId);
    expect(queue.enqueued).to.deep.equal([jobId]);
    expect(await credits.account(submission.subject)).to.include({ balance: 4, held: 1 });
    expect(await entryKinds()).to.deep.equal([
      ['hold', undefined],
      ['release', 'orphaned'],
      ['hold', undefined],
      ['grant', undefined],
    ]);
  });

  it('a funded submit is told of the grant its claim made; one refused for its key (another input) is a 422 and its grant stays on the balance', async () => {
    const credited: Array<number | undefined> = [];
    const funding = (nonce: string) => ({
      grant: grantOf(submission.subject, 1, nonce),
      credited: async (granted: ClaimGrant | undefined) => {
        credited.push(granted?.entry.credits);
      },
    });
    expect((await jobs.submit({ ...submission, funding: funding('nonce-1') })).replayed).to.equal(false);
    const refused = await jobs.submit({ ...submission, input: { prompt: 'other' }, funding: funding('nonce-2') }).catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(IdempotencyConflictError);
    expect(credited).to.deep.equal([1, 1]);
    expect(await credits.account(submission.subject)).to.include({ balance: 1, held: 1 });
    expect((await jobs.submit({ ...submission, funding: funding('nonce-1') })).replayed, 'the first again').to.equal(true);
    expect(credited, 'a replayed grant is not reported').to.deep.equal([1, 1, undefined]);
  });

  it('a sweep that lands between its claim and its mark, with the balance then short of the price, leaves it a 402 with nothing enqueued', async () => {
    expect((await credits.grant(grantOf(submission.subject, 4))).outcome).to.equal('created');
    await diedAfterClaim(150);
    ledger.beforeMark = () => sweeper.sweep();
    const refused = await jobs.submit({ ...submission, cost: 5 }).catch((error: unknown) => error);
    expect((refused as { status?: number } | undefined)?.status).to.equal(402);
    expect(queue.enqueued).to.deep.equal([]);
    expect(await credits.account(submission.subject)).to.include({ balance: 4, held: 0 });
  });

  it('a key whose acceptance a sweep releases before each of its two marks answers 503 and enqueues nothing', async () => {
    expect((await credits.grant(grantOf(submission.subject, 5))).outcome).to.equal('created');
    await releasedBeforeEachMark();
    const refused = await jobs.submit(submission).catch((error: unknown) => error);
    expect((refused as { status?: number } | undefined)?.status).to.equal(503);
    expect(queue.enqueued).to.deep.equal([]);
    // Held: the price of the last attempt's acceptance, which the sweep will release in its turn.
    expect(await credits.account(submission.subject)).to.include({ balance: 4, held: 1 });
  });

  it('a funded submit that answers 503 after its claim granted (its acceptance released before each mark) is still told of that grant', async () => {
    expect((await credits.grant(grantOf(submission.subject, 5))).outcome).to.equal('created');
    await releasedBeforeEachMark();
    const credited: Array<number | undefined> = [];
    const funding = {
      grant: grantOf(submission.subject, 3, 'nonce-503'),
      credited: async (granted: ClaimGrant | undefined) => {
        credited.push(granted?.entry.credits);
      },
    };
    const refused = await jobs.submit({ ...submission, funding }).catch((error: unknown) => error);
    expect((refused as { status?: number } | undefined)?.status).to.equal(503);
    expect(credited, 'told once, of the grant its first claim made').to.deep.equal([3]);
  });
});
