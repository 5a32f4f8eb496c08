import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { newSubject } from './harness';
import { pollJob } from './job-polling';
import { submitPrompt } from './job-submission';
import { type ApiUnderTest, type ProcessUnderTest, startApiProcess, startWorkerProcess } from './processes';

/** A dead worker's job is retaken in seconds; its lock outlives the few requests a test sends right after the kill. */
const FAST_RECOVERY = { JOB_LOCK_MS: '4000', JOB_STALLED_INTERVAL_MS: '1000' };
/** Jobs of a minute: any job that ran to its end would time the test out. */
const SLOW = { PLACEHOLDER_JOB_MS: '60000', LOG_LEVEL: 'debug', ...FAST_RECOVERY };

/**
 * Registers, in the calling `describe`, the proofs of a cancel meeting a worker that dies, on built processes
 * (dist/): an API, a worker killed with SIGKILL, and the worker that takes over. `topologyEnv(prefix)` is the
 * environment that points a process at the topology under test with that key prefix (fresh for each test).
 */
export function cancelCrashFlows(topologyEnv: (prefix: string) => Record<string, string>): void {
  let env: Record<string, string>;
  let api: ApiUnderTest;
  const workers: ProcessUnderTest[] = [];

  beforeEach(async () => {
    env = topologyEnv(`cancel-crash-${randomBytes(3).toString('hex')}:`);
    [api] = await Promise.all([startApiProcess(env), startWorkerProcess({ ...env, ...SLOW }).then((worker) => workers.push(worker))]);
  });
  afterEach(async () => {
    await Promise.all([api?.kill(), ...workers.splice(0).map((worker) => worker.kill())]);
  });

  const runningJob = async () => {
    const { token } = await api.link(newSubject());
    const created = await submitPrompt(api, token, 'doomed');
    expect(created.status, created.text).to.equal(202);
    await pollJob(api, token, created.body.id, (job) => job.status === 'running');
    return { token, job: created.body };
  };
  const expectCanceledOnce = async (token: string, job: { id: string; cost: number }) => {
    const ended = await pollJob(api, token, job.id, (seen) => seen.status !== 'running' && seen.status !== 'queued', 20_000);
    expect(ended).to.include({ status: 'canceled', refunded_credits: job.cost, result: null });
    // Read again: a read repairs a missed refund, and must never make a second one.
    await api.call('GET', `/v1/jobs/${job.id}`, { token });
    const me = await api.call('GET', '/v1/me', { token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 0, credits_refunded: job.cost });
  };

  it('a stalled job whose cancel arrived meanwhile is not run again by the next worker: it ends canceled, refunded once', async () => {
    const { token, job } = await runningJob();
    expect(await workers[0].kill()).to.equal('SIGKILL');
    const asked = await api.call('DELETE', `/v1/jobs/${job.id}`, { token });
    expect(asked.status).to.equal(202);
    workers.push(await startWorkerProcess({ ...env, ...SLOW }));
    await expectCanceledOnce(token, job);
    const rescuer = workers[1];
    expect(rescuer.logLines().some((line) => line.msg === 'job started' && line.job_id === job.id)).to.equal(false);
    expect(rescuer.logLines().some((line) => line.msg === 'job canceled' && line.job_id === job.id)).to.equal(true);
  });

  it('a job whose worker died reads queued once its lock expired, without the dead attempt’s start or progress: its cancel answers 200, canceled and refunded in full at once, and the next worker never starts it', async () => {
    const { token, job } = await runningJob();
    await pollJob(api, token, job.id, (seen) => seen.progress !== null, 20_000);
    expect(await workers[0].kill()).to.equal('SIGKILL');
    const queued = await pollJob(api, token, job.id, (seen) => seen.status === 'queued', 20_000);
    expect(queued).to.include({ attempts: 1, started_at: null, progress: null });
    const canceled = await api.call('DELETE', `/v1/jobs/${job.id}`, { token });
    expect(canceled.status, canceled.text).to.equal(200);
    expect(canceled.body).to.include({ status: 'canceled', refunded_credits: job.cost, result: null, started_at: null, progress: null });
    workers.push(await startWorkerProcess({ ...env, ...SLOW }));
    // Once the next worker runs a job submitted after the cancel, it has looked for stalled jobs and taken
    // what was queued: the canceled job was neither.
    const later = await submitPrompt(api, token, 'later');
    await pollJob(api, token, later.body.id, (seen) => seen.status === 'running', 20_000);
    expect((await api.call('GET', `/v1/jobs/${job.id}`, { token })).body).to.deep.equal(canceled.body);
    expect(workers[1].logLines().some((line) => line.job_id === job.id)).to.equal(false);
    const me = await api.call('GET', '/v1/me', { token });
    expect(me.body.usage).to.deep.equal({ jobs_charged: 2, credits_spent: later.body.cost, credits_refunded: job.cost });
  });

  it('a worker SIGKILLed right after a cancel of its running job was asked: the job ends canceled, refunded once', async () => {
    const { token, job } = await runningJob();
    const asked = await api.call('DELETE', `/v1/jobs/${job.id}`, { token });
    expect(asked.status).to.equal(202);
    // Whether the dying worker saw the cancel, refunded, or even ended the job before the kill is left to
    // chance: every case must end the same way.
    expect(await workers[0].kill()).to.equal('SIGKILL');
    workers.push(await startWorkerProcess({ ...env, ...SLOW }));
    await expectCanceledOnce(token, job);
  });
}
