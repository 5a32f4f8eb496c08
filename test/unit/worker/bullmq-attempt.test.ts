import { DelayedError, UnrecoverableError } from 'bullmq';
import { expect } from 'chai';
import pino from 'pino';
import { CANCEL_REQUESTED_FIELD, CANCELED_FIELD, FAILED_FIELD } from '../../../shared/adapters/redis/bullmq-job-record';
import { type JobEnd, JobLifecycle } from '../../../shared/domain/jobs/job-lifecycle';
import type { Ending, JobMoney } from '../../../shared/domain/jobs/job-settlement';
import { BullmqAttempt, type BullmqAttemptDeps, chargedJobOf, createJobProcessor, jobKeyOf } from '../../../worker/bullmq-attempt';
import type { CancelWatch } from '../../../worker/cancel-watch';
import type { RunningJob } from '../../../worker/running-job';
import { fakeBullJob, fakeHashClient } from '../../support/fake-bull-job';

const KEY = 'bull:jobs:job_1';
const REPORT = { percent: 40, message: 'half way', updated_at: '2026-01-01T00:00:20.000Z' };

/** The attempt's dependencies on a fake client; no cancel is ever asked. */
function deps(hashes: Record<string, Record<string, string>> = {}) {
  const redis = fakeHashClient(hashes);
  const writes: string[] = [];
  const cancels: CancelWatch = { abortOnCancel: () => () => {}, requested: async () => false, close: () => {} };
  const attemptDeps: BullmqAttemptDeps = {
    client: redis.client,
    cancels,
    writeProgress: async (key, progress) => {
      writes.push(`${key} ${JSON.stringify(progress)}`);
      return true;
    },
    logger: pino({ level: 'silent' }),
  };
  return { attemptDeps, redis, writes };
}

/** The end of the job of `fakeBullJob` as the lifecycle hands it to the attempt's ports. */
const endOf = (ending: Ending): JobEnd => ({
  job: chargedJobOf(fakeBullJob().job),
  ending,
  attempt: { id: 'job_1', operation: 'op', attempt: 1 },
  endedAt: Date.now(),
  ranMs: 0,
  progress: null,
  ran: true,
});

describe('a BullMQ attempt (the worker’s ports of the job lifecycle)', () => {
  describe('what was taken', () => {
    it('a first attempt: attempt 1, started when BullMQ processed it, waited from the job’s creation', () => {
      const { job } = fakeBullJob({ maxAttempts: 3, stalledCounter: 0 });
      const { taken } = new BullmqAttempt(job, deps().attemptDeps);
      expect(taken.attempt).to.equal(1);
      expect(taken.attemptsStarted).to.equal(1);
      expect(taken.maxAttempts).to.equal(3);
      expect(taken.startedMs).to.equal(job.processedOn);
      expect(taken.waitedMs).to.equal(10_000);
      expect(taken.job).to.deep.equal({
        id: 'job_1',
        subject: 's',
        operation: 'op',
        cost: 5,
        created_at: job.data.created_at,
        input: { prompt: 'hi' },
      });
    });

    it('a retry: its start is the saved first start, its error the saved one, and it waited nothing', () => {
      const progress = { started_at: '2026-01-01T00:00:05.000Z', error: 'Busy.' };
      const { job } = fakeBullJob({ attemptsMade: 1, attemptsStarted: 2, progress, maxAttempts: 3 });
      const { taken } = new BullmqAttempt(job, deps().attemptDeps);
      expect(taken.attempt).to.equal(2);
      expect(taken.startedMs).to.equal(Date.parse(progress.started_at));
      expect(taken.lastError).to.equal('Busy.');
      expect(taken.waitedMs).to.equal(undefined);
    });
  });

  describe('saveStart', () => {
    it('a first attempt writes nothing (BullMQ’s processedOn is its start)', async () => {
      const { job, calls } = fakeBullJob();
      await new BullmqAttempt(job, deps().attemptDeps).saveStart();
      expect(calls).to.deep.equal([]);
    });

    it('a job taken again without a saved start (after a stall) saves its own', async () => {
      const { job, calls } = fakeBullJob({ attemptsStarted: 2 });
      await new BullmqAttempt(job, deps().attemptDeps).saveStart();
      expect(calls).to.deep.equal([`progress ${JSON.stringify({ started_at: new Date(job.processedOn!).toISOString() })}`]);
    });
  });

  describe('readDecision', () => {
    for (const [fields, decision] of [
      [{ [FAILED_FIELD]: '1' }, 'failed'],
      [{ [CANCEL_REQUESTED_FIELD]: '1', [FAILED_FIELD]: '1' }, 'failed'],
      [{ [CANCEL_REQUESTED_FIELD]: '1' }, 'canceled'],
      [{}, undefined],
    ] as const) {
      it(`fields ${JSON.stringify(Object.keys(fields))}: ${decision ?? 'no decision'}`, async () => {
        const attempt = new BullmqAttempt(fakeBullJob().job, deps({ [KEY]: { ...fields } }).attemptDeps);
        expect(await attempt.readDecision()).to.equal(decision);
      });
    }
  });

  it('saveProgress: sent through the progress store with the start kept, and kept for the writes that follow', async () => {
    const { attemptDeps, writes, redis } = deps();
    const { job } = fakeBullJob({ progress: { started_at: 'x' } });
    const attempt = new BullmqAttempt(job, attemptDeps);
    await attempt.saveProgress(REPORT);
    expect(writes).to.deep.equal([`${KEY} ${JSON.stringify({ started_at: 'x', reported: REPORT })}`]);
    await attempt.writeDecision(endOf({ kind: 'failed', message: 'No.' }));
    expect(JSON.parse(redis.hashes[KEY].progress)).to.deep.equal({ started_at: 'x', reported: REPORT, error: 'No.' });
  });

  it('a report with a partial result: saved whole while the attempt runs, kept without it by the ending, dropped whole by a retry', async () => {
    const { attemptDeps, writes, redis } = deps();
    const withPartial = { ...REPORT, partial: { pages: 2 } };
    const attempt = new BullmqAttempt(fakeBullJob({ progress: { started_at: 'x' } }).job, attemptDeps);
    await attempt.saveProgress(withPartial);
    expect(writes).to.deep.equal([`${KEY} ${JSON.stringify({ started_at: 'x', reported: withPartial })}`]);
    await attempt.writeDecision(endOf({ kind: 'failed', message: 'No.' }));
    expect(JSON.parse(redis.hashes[KEY].progress)).to.deep.equal({ started_at: 'x', reported: REPORT, error: 'No.' });
    const { job, calls } = fakeBullJob({ progress: { started_at: 'x', reported: withPartial } });
    await new BullmqAttempt(job, deps().attemptDeps).retry('Busy.').catch(() => undefined);
    expect(calls).to.deep.equal([`progress ${JSON.stringify({ started_at: 'x', error: 'Busy.' })}`]);
  });

  describe('take', () => {
    it('a first attempt: taken as constructed, nothing read', async () => {
      const { attemptDeps } = deps({ [KEY]: { [FAILED_FIELD]: '1' } });
      const attempt = new BullmqAttempt(fakeBullJob().job, attemptDeps);
      expect((await attempt.take()).earlier).to.equal(undefined);
    });

    it('a job taken again: the decision an earlier taking recorded comes with it, and its report', async () => {
      const { attemptDeps } = deps({ [KEY]: { [CANCEL_REQUESTED_FIELD]: '1' } });
      const job = fakeBullJob({ attemptsStarted: 2, progress: { started_at: 'x', reported: REPORT } }).job;
      const taken = await new BullmqAttempt(job, attemptDeps).take();
      expect(taken.earlier).to.equal('canceled');
      expect(taken.lastReport).to.deep.equal(REPORT);
    });

    it('a job taken again with no decision (handed back after a crash): the dead attempt’s report is dropped, in the job and for its settlement', async () => {
      const { attemptDeps } = deps();
      const { job, calls } = fakeBullJob({ attemptsStarted: 2, progress: { started_at: 'x', reported: REPORT } });
      const taken = await new BullmqAttempt(job, attemptDeps).take();
      expect(taken.earlier).to.equal(undefined);
      expect(taken.lastReport).to.equal(null);
      expect(calls).to.deep.equal([`progress ${JSON.stringify({ started_at: 'x' })}`]);
    });
  });

  it('retry: the failed attempt’s report is not kept for the next attempt, which starts over', async () => {
    const { job, calls } = fakeBullJob({ progress: { started_at: 'x', reported: REPORT } });
    await new BullmqAttempt(job, deps().attemptDeps).retry('Busy.').catch(() => undefined);
    expect(calls).to.deep.equal([`progress ${JSON.stringify({ started_at: 'x', error: 'Busy.' })}`]);
  });

  it('retry: keeps the safe message and the start beside the job, then throws it for BullMQ to retry', async () => {
    const { job, calls } = fakeBullJob();
    const attempt = new BullmqAttempt(job, deps().attemptDeps);
    const thrown = await attempt.retry('Busy.').catch((error: unknown) => error);
    expect((thrown as Error).message).to.equal('Busy.');
    expect(thrown).to.not.be.an.instanceOf(UnrecoverableError);
    expect(calls).to.deep.equal([`progress ${JSON.stringify({ started_at: new Date(job.processedOn!).toISOString(), error: 'Busy.' })}`]);
  });

  describe('the ending', () => {
    it('a failure: its decision (`cxf` and the message) is written before any settlement', async () => {
      const { attemptDeps, redis } = deps();
      await new BullmqAttempt(fakeBullJob().job, attemptDeps).writeDecision(endOf({ kind: 'failed', message: 'No.' }));
      expect(redis.calls).to.deep.equal([`hset ${KEY} progress,${FAILED_FIELD}`]);
      expect(JSON.parse(redis.hashes[KEY].progress).error).to.equal('No.');
    });

    it('a cancel: no decision to write (its request is the decision); settled, it shows canceled and joins the canceled set', async () => {
      const { attemptDeps, redis } = deps();
      const attempt = new BullmqAttempt(fakeBullJob().job, attemptDeps);
      await attempt.writeDecision(endOf({ kind: 'canceled' }));
      expect(redis.calls).to.deep.equal([]);
      await attempt.writeSettled(endOf({ kind: 'canceled' }), { released: 5, made: true });
      expect(redis.calls).to.deep.equal([`hset ${KEY} progress,${CANCELED_FIELD}`, 'zadd bull:jobs:canceled job_1']);
      expect(JSON.parse(redis.hashes[KEY].progress)).to.include({ canceled: true, refunded: 5 });
    });

    it('a failure refunded nothing: nothing more written once settled', async () => {
      const { attemptDeps, redis } = deps();
      await new BullmqAttempt(fakeBullJob().job, attemptDeps).writeSettled(endOf({ kind: 'failed', message: 'No.' }), {
        released: 0,
        made: true,
      });
      expect(redis.calls).to.deep.equal([]);
    });

    it('markEnded: a success hands BullMQ its result; a failure or a cancel an UnrecoverableError (never retried)', () => {
      const attempt = new BullmqAttempt(fakeBullJob().job, deps().attemptDeps);
      expect(attempt.markEnded(endOf({ kind: 'succeeded', result: { ok: true } }))).to.deep.equal({ ok: true });
      expect(() => attempt.markEnded(endOf({ kind: 'failed', message: 'No.' }))).to.throw(UnrecoverableError, 'No.');
      expect(() => attempt.markEnded(endOf({ kind: 'canceled' }))).to.throw(UnrecoverableError, 'canceled');
    });
  });

  describe('createJobProcessor', () => {
    const lifecycleWith = (money: JobMoney) => new JobLifecycle({ processors: new Map([['op', async () => ({ done: true })]]), money });

    it('runs the attempt through the lifecycle and answers its result; the job is running only while it runs', async () => {
      const running = new Map<string, RunningJob>();
      const process = createJobProcessor({
        ...deps().attemptDeps,
        lifecycle: lifecycleWith({ settle: () => ({ released: 0, made: true }) }),
        running,
      });
      expect(await process(fakeBullJob().job, 'token')).to.deep.equal({ done: true });
      expect(running.size).to.equal(0);
    });

    it('an ending whose settlement fails: the job is put off (moved to delayed under its token) and BullMQ told so', async () => {
      const { job, calls } = fakeBullJob();
      const failing = lifecycleWith({
        settle: () => {
          throw new Error('Connection is closed.');
        },
      });
      const process = createJobProcessor({ ...deps().attemptDeps, lifecycle: failing, running: new Map() });
      const thrown = await process(job, 'token').catch((error: unknown) => error);
      expect(thrown).to.be.an.instanceOf(DelayedError);
      expect(calls).to.deep.equal(['delayed token true']);
    });
  });

  it('jobKeyOf: the job’s hash, beside BullMQ’s own fields', () => {
    expect(jobKeyOf(fakeBullJob().job)).to.equal(KEY);
  });
});
