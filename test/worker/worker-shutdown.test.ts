import { expect } from 'chai';
import { newSubject } from '../support/harness';
import { pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { measurement } from '../support/measurement';
import { type ApiUnderTest, type ProcessUnderTest, redisEnv, startApiProcess, startWorkerProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const GRACE_MS = 3000;

describe('SIGTERM to a built worker in the middle of a job longer than its grace period', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let api: ApiUnderTest;
  let first: ProcessUnderTest;
  let second: ProcessUnderTest | undefined;

  before(async () => {
    redis = await startRedis();
    api = await startApiProcess(redisEnv(redis.url, 'handback:'));
    // The default lock (30 s) and stalled check (30 s): a job that is only left to expire would take that long.
    first = await startWorkerProcess(
      redisEnv(redis.url, 'handback:', { PLACEHOLDER_JOB_MS: '60000', SHUTDOWN_GRACE_MS: String(GRACE_MS) }),
    );
  });
  after(async () => {
    await Promise.all([api?.kill(), first?.kill(), second?.kill()]);
    await redis?.stop();
  });

  it('turns /readyz 503, hands the job back to the queue, exits 0 within the grace, and the next worker finishes it at once, charged once', async () => {
    const { token } = await api.link(newSubject());
    const created = await submitPrompt(api, token, 'hand me back');
    expect(created.status, created.text).to.equal(202);
    await pollJob(api, token, created.body.id, (job) => job.status === 'running');

    const signalledAt = Date.now();
    const exited = first.stop();
    await waitFor(() => fetch(`http://127.0.0.1:${first.metricsPort}/readyz`).then((r) => r.status === 503), {
      what: 'the worker to report not ready',
    });
    expect(await exited).to.equal(0);
    const exitMs = Date.now() - signalledAt;
    expect(exitMs, `exited after ${exitMs} ms`).to.be.below(GRACE_MS + 2000);
    const handedBack = first
      .logLines()
      .find((line) => line.msg === 'jobs still running at the end of the grace period; handed back to the queue');
    expect(handedBack?.handed_back).to.deep.equal([created.body.id]);
    // Back in the queue, not left active under a dead lock.
    expect((await api.call('GET', `/v1/jobs/${created.body.id}`, { token })).body.status).to.equal('queued');

    const restartedAt = Date.now();
    second = await startWorkerProcess(redisEnv(redis.url, 'handback:', { PLACEHOLDER_JOB_MS: '50' }));
    // Well before the 30 s lock of the first worker could have expired.
    const done = await pollJob(api, token, created.body.id, (job) => job.status === 'succeeded', 20_000);
    const tookMs = Date.now() - restartedAt;
    measurement(`      handed back; the next worker finished it ${tookMs} ms after it started`);
    expect(tookMs).to.be.below(20_000);
    expect(done.attempts).to.equal(2);
    expect(done.result).to.include({ summary: 'hand me back' });
    expect((await api.call('GET', '/v1/me', { token })).body.usage).to.deep.equal({
      jobs_charged: 1,
      credits_spent: 1,
      credits_refunded: 0,
    });
  });
});
