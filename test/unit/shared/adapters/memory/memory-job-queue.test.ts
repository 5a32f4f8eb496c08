import { expect } from 'chai';
import { MemoryJobQueue } from '../../../../../shared/adapters/memory/memory-job-queue';
import type { JobRecord } from '../../../../../shared/domain/jobs/job';
import { JobError } from '../../../../../shared/domain/jobs/job-error';
import { JobLifecycle } from '../../../../../shared/domain/jobs/job-lifecycle';
import type { Settlement } from '../../../../../shared/domain/jobs/job-settlement';
import { newJob as queuedJob } from '../../../../support/new-job';
import { waitFor } from '../../../../testkit/wait-for';

const newJob = (id: string) => queuedJob({ id, subject: 's', operation: 'op', input: { n: id } });

/**
 * A queue of one slot whose `op` jobs run until `release()` ends the one running, with `result`; `started`
 * says whether one has begun (and `release` is then its own).
 */
function heldQueue(result: Record<string, unknown>) {
  let finish: (() => void) | undefined;
  const queue = new MemoryJobQueue({
    lifecycle: new JobLifecycle({
      processors: new Map([['op', () => new Promise((resolve) => (finish = () => resolve(result)))]]),
    }),
    concurrency: 1,
    attempts: 1,
    backoffMs: 0,
    retentionMs: 60_000,
  });
  return { queue, started: () => finish !== undefined, release: () => finish?.() };
}

describe('the in-memory job queue', () => {
  it('never runs more jobs at once than its concurrency', async () => {
    let running = 0;
    let peak = 0;
    const release: Array<() => void> = [];
    const queue = new MemoryJobQueue({
      lifecycle: new JobLifecycle({
        processors: new Map([
          [
            'op',
            async () => {
              running++;
              peak = Math.max(peak, running);
              await new Promise<void>((resolve) => release.push(resolve));
              running--;
              return {};
            },
          ],
        ]),
      }),
      concurrency: 2,
      attempts: 1,
      backoffMs: 0,
      retentionMs: 60_000,
    });
    for (let i = 0; i < 5; i++) await queue.enqueue(newJob(`j${i}`));
    await waitFor(() => release.length === 2, { what: 'two jobs to start' });
    expect((await queue.counts()).queued).to.equal(3);
    while ((await queue.counts()).succeeded < 5) {
      for (const resolve of release.splice(0)) resolve();
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(peak).to.equal(2);
  });

  it('enqueueing a known id changes nothing and runs nothing twice', async () => {
    let runs = 0;
    const queue = new MemoryJobQueue({
      lifecycle: new JobLifecycle({ processors: new Map([['op', async () => ({ run: ++runs })]]) }),
      concurrency: 4,
      attempts: 1,
      backoffMs: 0,
      retentionMs: 60_000,
    });
    await Promise.all([queue.enqueue(newJob('same')), queue.enqueue({ ...newJob('same'), input: { other: true } })]);
    await waitFor(async () => (await queue.get('same'))?.status === 'succeeded', { what: 'success' });
    expect(runs).to.equal(1);
    expect((await queue.get('same'))!.input).to.deep.equal({ n: 'same' });
  });

  it('a record read while its job runs keeps what it showed once the job has succeeded', async () => {
    const { queue, release } = heldQueue({ done: true });
    await queue.enqueue(newJob('kept'));
    const running = await waitFor(
      async () => {
        const job = await queue.get('kept');
        return job?.status === 'running' ? job : undefined;
      },
      { what: 'the job to run' },
    );
    release();
    await waitFor(async () => (await queue.get('kept'))?.status === 'succeeded', { what: 'success' });
    expect(running).to.include({ status: 'running', result: null, finished_at: null });
    expect((await queue.get('kept'))!.result).to.deep.equal({ done: true });
  });

  it('a finished job is swept once its retention has passed, not before', async () => {
    const queue = new MemoryJobQueue({
      lifecycle: new JobLifecycle({ processors: new Map([['op', async () => ({})]]) }),
      concurrency: 1,
      attempts: 1,
      backoffMs: 0,
      retentionMs: 1000,
    });
    await queue.enqueue(newJob('old'));
    const done = await waitFor(async () => {
      const job = await queue.get('old');
      return job?.status === 'succeeded' ? job : undefined;
    });
    const finished = Date.parse((done as JobRecord).finished_at!);
    queue.sweep(finished + 999);
    expect(queue.has('old')).to.equal(true);
    queue.sweep(finished + 1000);
    expect(queue.has('old')).to.equal(false);
  });

  it('close waits for the running job and then takes no new work', async () => {
    const { queue, started, release } = heldQueue({ ok: true });
    await queue.enqueue(newJob('busy'));
    await waitFor(started, { what: 'the job to start' });
    const closed = queue.close(5000);
    await queue.enqueue(newJob('late'));
    release();
    await closed;
    expect((await queue.get('busy'))!.status).to.equal('succeeded');
    expect(await queue.get('late')).to.equal(undefined);
  });

  it('an operation with its own attempts and back-off is retried by them, not by the global ones', async () => {
    const starts: number[] = [];
    const queue = new MemoryJobQueue({
      lifecycle: new JobLifecycle({
        processors: new Map([
          [
            'op',
            async () => {
              starts.push(Date.now());
              throw new Error('always fails');
            },
          ],
        ]),
      }),
      concurrency: 1,
      attempts: 5,
      backoffMs: 0,
      policies: new Map([['op', { attempts: 2, backoffMs: 120, timeoutMs: undefined, refundOnFailure: true }]]),
      retentionMs: 60_000,
    });
    await queue.enqueue(newJob('own'));
    const done = await waitFor(async () => {
      const job = await queue.get('own');
      return job?.status === 'failed' ? job : undefined;
    });
    expect(done.attempts).to.equal(2);
    expect(starts).to.have.length(2);
    expect(starts[1] - starts[0], 'the operation’s back-off before the retry').to.be.at.least(110);
  });

  it('a job waiting for its retry shows neither the start nor the progress nor the partial result of the failed attempt, and a cancel then refunds it in full', async () => {
    let seen: Promise<void> | undefined;
    let progressShown!: () => void;
    const settlements: Settlement[] = [];
    const queue = new MemoryJobQueue({
      lifecycle: new JobLifecycle({
        processors: new Map([
          [
            'op',
            async (_input, context) => {
              context.progress(50, 'half way');
              context.partial({ pages: 1 });
              seen ??= new Promise<void>((resolve) => (progressShown = resolve));
              await seen;
              throw new JobError('Busy.');
            },
          ],
        ]),
        money: {
          settle: (_job, settlement) => {
            settlements.push(settlement);
            return { released: settlement.release, made: true };
          },
        },
      }),
      concurrency: 1,
      attempts: 1,
      backoffMs: 0,
      policies: new Map([
        ['op', { attempts: 2, backoffMs: 60_000, timeoutMs: undefined, refundOnFailure: true, cancelCharge: 'progress' }],
      ]),
      retentionMs: 60_000,
    });
    await queue.enqueue({ ...newJob('half'), cost: 4 });
    const running = await waitFor(
      async () => {
        const job = await queue.get('half');
        return job?.partial ? job : undefined;
      },
      { what: 'the first attempt at 50 %, with its partial result' },
    );
    expect(running).to.deep.include({ progress: running.progress, partial: { pages: 1 } });
    expect(running.progress?.percent).to.equal(50);
    progressShown();
    const waiting = await waitFor(async () => {
      const job = await queue.get('half');
      return job?.status === 'queued' ? job : undefined;
    });
    expect(waiting).to.include({ attempts: 1, started_at: null, progress: null, partial: null });
    const canceled = await queue.cancel('half');
    expect(canceled?.outcome).to.equal('canceled');
    expect(canceled?.job).to.include({ status: 'canceled', started_at: null, progress: null, refunded_credits: 4 });
    expect(settlements).to.deep.equal([{ capture: 0, release: 4, reason: 'canceled' }]);
    await queue.close(1000);
  });
});
