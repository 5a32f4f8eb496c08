import { expect } from 'chai';
import { MemoryJobQueue } from '../../../../../shared/adapters/memory/memory-job-queue';
import { JobError } from '../../../../../shared/domain/jobs/job-error';
import { JobLifecycle } from '../../../../../shared/domain/jobs/job-lifecycle';
import { createJobObserver } from '../../../../../shared/domain/jobs/job-observer';
import { createLogger } from '../../../../../shared/platform/logging/logger';
import { Metrics } from '../../../../../shared/platform/metrics/metrics';
import { LogCapture } from '../../../../support/log-capture';
import { waitFor } from '../../../../testkit/wait-for';

/** The value of one exposition line (`name{labels}`), or undefined when the series is absent. */
async function series(metrics: Metrics, name: string): Promise<number | undefined> {
  const line = (await metrics.registry.metrics()).split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
}

function setup(level = 'debug') {
  const metrics = new Metrics({ defaultMetrics: false });
  const log = new LogCapture();
  const logger = createLogger(level, 'observer-test', log);
  const lines = () => log.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { metrics, logger, lines };
}

describe('the job observer', () => {
  it('a first start records its wait; a later attempt’s start records none; both are debug lines', async () => {
    const { metrics, logger, lines } = setup();
    const observer = createJobObserver(metrics, logger);
    observer.started({ id: 'j1', operation: 'op', attempt: 1 }, 1500);
    observer.started({ id: 'j1', operation: 'op', attempt: 2 });
    expect(await series(metrics, 'connector_job_wait_seconds_count{operation="op"}')).to.equal(1);
    expect(await series(metrics, 'connector_job_wait_seconds_sum{operation="op"}')).to.equal(1.5);
    expect(await series(metrics, 'connector_job_wait_seconds_bucket{le="2.5",operation="op"}')).to.equal(1);
    expect(await series(metrics, 'connector_job_wait_seconds_bucket{le="1",operation="op"}')).to.equal(0);
    expect(lines().map((l) => [l.msg, l.level, l.job_id, l.operation, l.attempt])).to.deep.equal([
      ['job started', 20, 'j1', 'op', 1],
      ['job started', 20, 'j1', 'op', 2],
    ]);
  });

  it('each outcome is counted with its run time; a failure is a warn line with its safe message, a success a debug line', async () => {
    const { metrics, logger, lines } = setup();
    const observer = createJobObserver(metrics, logger);
    observer.finished({ id: 'a', operation: 'op', attempt: 1 }, 'succeeded', 250);
    observer.finished({ id: 'b', operation: 'op', attempt: 3 }, 'failed', 4000, 'Still busy.');
    observer.finished({ id: 'c', operation: 'op', attempt: 1 }, 'failed', 10, 'Refused.');
    expect(await series(metrics, 'connector_jobs_completed_total{operation="op",outcome="succeeded"}')).to.equal(1);
    expect(await series(metrics, 'connector_jobs_completed_total{operation="op",outcome="failed"}')).to.equal(2);
    expect(await series(metrics, 'connector_job_duration_seconds_count{operation="op"}')).to.equal(3);
    expect(await series(metrics, 'connector_job_duration_seconds_sum{operation="op"}')).to.be.closeTo(4.26, 1e-9);
    expect(lines().map((l) => [l.msg, l.level, l.job_id, l.attempt, l.error])).to.deep.equal([
      ['job succeeded', 20, 'a', 1, undefined],
      ['job failed', 40, 'b', 3, 'Still busy.'],
      ['job failed', 40, 'c', 1, 'Refused.'],
    ]);
  });

  it('at info a success writes no line and a failure still does', () => {
    const { metrics, logger, lines } = setup('info');
    const observer = createJobObserver(metrics, logger);
    observer.started({ id: 'a', operation: 'op', attempt: 1 }, 5);
    observer.finished({ id: 'a', operation: 'op', attempt: 1 }, 'succeeded', 5);
    observer.finished({ id: 'b', operation: 'op', attempt: 1 }, 'failed', 5, 'No.');
    expect(lines().map((l) => l.msg)).to.deep.equal(['job failed']);
  });

  it('a time that is not a number still counts the outcome, records no time and does not throw; a negative one counts as 0', async () => {
    const { metrics, logger } = setup();
    const observer = createJobObserver(metrics, logger);
    observer.started({ id: 'a', operation: 'op', attempt: 1 }, NaN);
    observer.finished({ id: 'a', operation: 'op', attempt: 1 }, 'succeeded', NaN);
    expect(await series(metrics, 'connector_jobs_completed_total{operation="op",outcome="succeeded"}')).to.equal(1);
    expect(await series(metrics, 'connector_job_duration_seconds_count{operation="op"}')).to.equal(undefined);
    expect(await series(metrics, 'connector_job_wait_seconds_count{operation="op"}')).to.equal(undefined);
    observer.started({ id: 'b', operation: 'op', attempt: 1 }, -20);
    expect(await series(metrics, 'connector_job_wait_seconds_count{operation="op"}')).to.equal(1);
    expect(await series(metrics, 'connector_job_wait_seconds_sum{operation="op"}')).to.equal(0);
  });

  it('the in-memory queue’s attempts: a first start records the wait from created_at, the end the run from the first start (not the shown started_at, the last attempt’s), a retry’s start no wait', async () => {
    const { metrics, logger, lines } = setup();
    const calls: number[] = [];
    const queue = new MemoryJobQueue({
      lifecycle: new JobLifecycle({
        processors: new Map([
          [
            'op',
            async () => {
              calls.push(Date.now());
              throw new JobError('Gone.');
            },
          ],
        ]),
        observer: createJobObserver(metrics, logger),
      }),
      concurrency: 1,
      attempts: 2,
      backoffMs: 0,
      retentionMs: 60_000,
    });
    await queue.enqueue({
      id: 'm1',
      subject: 's',
      operation: 'op',
      input: {},
      cost: 0,
      createdAt: new Date(Date.now() - 2000).toISOString(),
    });
    const job = await waitFor(async () => {
      const stored = await queue.get('m1');
      return stored?.status === 'failed' ? stored : undefined;
    });
    const [created, lastStart, finished] = [job.created_at, job.started_at!, job.finished_at!].map((at) => Date.parse(at));
    // The queue stamps an attempt's start just before its processor runs: within a few ms of `calls`.
    const [firstCall, lastCall] = calls;
    expect(lastStart).to.be.within(lastCall - 50, lastCall);
    expect(await series(metrics, 'connector_job_wait_seconds_count{operation="op"}')).to.equal(1);
    expect(await series(metrics, 'connector_job_wait_seconds_sum{operation="op"}')).to.be.within(
      (firstCall - 50 - created) / 1000,
      (firstCall - created) / 1000,
    );
    expect(await series(metrics, 'connector_jobs_completed_total{operation="op",outcome="failed"}')).to.equal(1);
    expect(await series(metrics, 'connector_job_duration_seconds_sum{operation="op"}')).to.be.within(
      (finished - firstCall) / 1000,
      (finished - firstCall + 50) / 1000,
    );
    expect(lines().map((l) => [l.msg, l.attempt, l.error])).to.deep.equal([
      ['job started', 1, undefined],
      ['job attempt failed; retrying', 1, 'Gone.'],
      ['job started', 2, undefined],
      ['job failed', 2, 'Gone.'],
    ]);
  });
});
