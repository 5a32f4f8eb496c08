import { expect } from 'chai';
import { MemoryJobQueue } from '../../../../../shared/adapters/memory/memory-job-queue';
import type { JobRecord } from '../../../../../shared/domain/jobs/job';
import { JobLifecycle } from '../../../../../shared/domain/jobs/job-lifecycle';
import { newJob as queuedJob } from '../../../../support/new-job';
import { waitFor } from '../../../../testkit/wait-for';

const newJob = (id: string) => queuedJob({ id, subject: 's', operation: 'op', input: { n: id } });

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
    let release!: () => void;
    const queue = new MemoryJobQueue({
      lifecycle: new JobLifecycle({
        processors: new Map([['op', () => new Promise((resolve) => (release = () => resolve({ ok: true })))]]),
      }),
      concurrency: 1,
      attempts: 1,
      backoffMs: 0,
      retentionMs: 60_000,
    });
    await queue.enqueue(newJob('busy'));
    await waitFor(() => release !== undefined);
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
});
