import { expect } from 'chai';
import { BASE_ENV, newSubject } from '../support/harness';
import { pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { measurement } from '../support/measurement';
import { type ApiUnderTest, type ProcessUnderTest, redisEnv, startApiProcess, startWorkerProcess } from '../support/processes';
import { spawnNode } from '../support/spawn-process';
import { freePort } from '../testkit/free-port';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

/**
 * Lock and stalled-check settings that let a dead worker's job be retaken in seconds instead of minutes.
 * Every worker on one queue gets the same values: the stalled check is throttled queue-wide by the interval
 * of whichever worker ran it last.
 */
const FAST_RECOVERY = { JOB_LOCK_MS: '2000', JOB_STALLED_INTERVAL_MS: '1000' };

describe('the built worker process (dist/worker/main.js)', function () {
  this.timeout(60_000);

  describe('configuration', () => {
    it('refuses to start without REDIS_URL: names it on stderr, exits 78 and never opens its port', async () => {
      const metricsPort = await freePort();
      const { REDIS_URL: _unset, ...env } = { ...BASE_ENV, REDIS_URL: undefined, METRICS_PORT: String(metricsPort) };
      const proc = spawnNode('dist/worker/main.js', env as Record<string, string>);
      expect(await proc.exited).to.equal(78);
      expect(proc.stderr()).to.match(/REDIS_URL is required by the worker/);
      const probe = await fetch(`http://127.0.0.1:${metricsPort}/healthz`).then(
        () => 'open',
        () => 'closed',
      );
      expect(probe).to.equal('closed');
    });

    it('refuses to start without CONNECTOR_SECRET even with REDIS_URL, naming the variable and never its value', async () => {
      const { CONNECTOR_SECRET: _unset, ...rest } = BASE_ENV;
      const proc = spawnNode('dist/worker/main.js', {
        ...rest,
        REDIS_URL: 'redis://127.0.0.1:1',
        LINK_SECRET: 'a-link-secret-that-must-not-leak',
      });
      expect(await proc.exited).to.equal(78);
      expect(proc.stderr()).to.include('CONNECTOR_SECRET');
      expect(proc.stderr() + proc.stdout()).to.not.include('a-link-secret-that-must-not-leak');
    });
  });

  describe('probes, and Redis down at start', () => {
    let redis: TestRedis;
    let worker: ProcessUnderTest;
    let api: ApiUnderTest;

    before(async () => {
      redis = await startRedis();
      await redis.kill();
      worker = await startWorkerProcess(redisEnv(redis.url, 'probes:', { PLACEHOLDER_JOB_MS: '50' }));
    });
    after(async () => {
      await Promise.all([worker?.kill(), api?.kill()]);
      await redis?.stop();
    });

    it('keeps running with Redis down: /healthz 200, /readyz 503, /metrics shows connector_redis_up 0', async () => {
      const base = `http://127.0.0.1:${worker.metricsPort}`;
      expect((await fetch(`${base}/healthz`)).status).to.equal(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).to.equal(503);
      expect(await ready.json()).to.deep.equal({ status: 'unavailable' });
      expect(await (await fetch(`${base}/metrics`)).text()).to.match(/^connector_redis_up 0$/m);
      expect(worker.proc.child.exitCode).to.equal(null);
    });

    it('becomes ready by itself when Redis comes up, and consumes jobs', async () => {
      await redis.restart();
      const base = `http://127.0.0.1:${worker.metricsPort}`;
      await waitFor(() => fetch(`${base}/readyz`).then((r) => r.status === 200), { timeoutMs: 15_000, what: 'worker ready' });
      api = await startApiProcess(redisEnv(redis.url, 'probes:'));
      const { token } = await api.link(newSubject());
      const job = await submitPrompt(api, token, 'late start');
      await pollJob(api, token, job.body.id, (j) => j.status === 'succeeded');
      const metrics = await (await fetch(`${base}/metrics`)).text();
      expect(metrics).to.match(/^connector_redis_up 1$/m);
      expect(metrics).to.match(/^connector_jobs_completed_total\{operation="createJob",outcome="succeeded"\} 1$/m);
      expect(metrics).to.match(/^process_cpu_user_seconds_total /m);
    });
  });

  describe('a worker killed with SIGKILL mid-job', () => {
    let redis: TestRedis;
    let api: ApiUnderTest;
    let doomed: ProcessUnderTest;
    let rescuer: ProcessUnderTest | undefined;

    before(async () => {
      redis = await startRedis();
      api = await startApiProcess(redisEnv(redis.url, 'sigkill:'));
      // This worker would take a minute: it is killed long before.
      doomed = await startWorkerProcess(redisEnv(redis.url, 'sigkill:', { PLACEHOLDER_JOB_MS: '60000', ...FAST_RECOVERY }));
    });
    after(async () => {
      await Promise.all([api?.kill(), doomed?.kill(), rescuer?.kill()]);
      await redis?.stop();
    });

    it('leaves its job to another worker, which finishes it; the job is charged once', async () => {
      const { token } = await api.link(newSubject());
      const created = await submitPrompt(api, token, 'survive a crash');
      await pollJob(api, token, created.body.id, (job) => job.status === 'running');
      expect(await doomed.kill()).to.equal('SIGKILL');
      const killedAt = Date.now();
      // At debug, to see the job's success line.
      rescuer = await startWorkerProcess(
        redisEnv(redis.url, 'sigkill:', { PLACEHOLDER_JOB_MS: '50', LOG_LEVEL: 'debug', ...FAST_RECOVERY }),
      );
      const done = await pollJob(api, token, created.body.id, (job) => job.status === 'succeeded', 20_000);
      measurement(`      job finished by the second worker ${Date.now() - killedAt} ms after the SIGKILL`);
      expect(done.attempts).to.equal(2);
      expect(done.result).to.include({ summary: 'survive a crash' });
      const me = await api.call('GET', '/v1/me', { token });
      expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
      expect(rescuer.logLines().some((line) => line.msg === 'job succeeded' && line.job_id === created.body.id)).to.equal(true);
    });
  });

  describe('SIGTERM', () => {
    let redis: TestRedis;
    let api: ApiUnderTest;
    let worker: ProcessUnderTest | undefined;

    before(async () => {
      redis = await startRedis();
      api = await startApiProcess(redisEnv(redis.url, 'sigterm:'));
    });
    after(async () => {
      await Promise.all([api?.kill(), worker?.kill()]);
      await redis?.stop();
    });

    it('finishes the running job, then exits 0 within the grace period', async () => {
      worker = await startWorkerProcess(
        redisEnv(redis.url, 'sigterm:', { PLACEHOLDER_JOB_MS: '1500', SHUTDOWN_GRACE_MS: '10000', LOG_LEVEL: 'debug', ...FAST_RECOVERY }),
      );
      const { token } = await api.link(newSubject());
      const created = await submitPrompt(api, token, 'drain me');
      await pollJob(api, token, created.body.id, (job) => job.status === 'running');
      const signalledAt = Date.now();
      const code = await worker.stop();
      const elapsed = Date.now() - signalledAt;
      expect(code).to.equal(0);
      expect(elapsed).to.be.below(10_000);
      const lines = worker.logLines();
      const stopping = lines.findIndex((line) => line.msg === 'shutting down');
      const finished = lines.findIndex((line) => line.msg === 'job succeeded' && line.job_id === created.body.id);
      expect(stopping).to.be.greaterThan(-1);
      expect(finished, 'the job finished after SIGTERM, before exit').to.be.greaterThan(stopping);
      expect((await api.call('GET', `/v1/jobs/${created.body.id}`, { token })).body.status).to.equal('succeeded');
    });

    it('with a job longer than the grace period, exits 0 within it and the job is finished by the next worker', async () => {
      worker = await startWorkerProcess(
        redisEnv(redis.url, 'sigterm:', { PLACEHOLDER_JOB_MS: '60000', SHUTDOWN_GRACE_MS: '1500', ...FAST_RECOVERY }),
      );
      const { token } = await api.link(newSubject());
      const created = await submitPrompt(api, token, 'too long');
      await pollJob(api, token, created.body.id, (job) => job.status === 'running');
      const signalledAt = Date.now();
      const code = await worker.stop();
      const elapsed = Date.now() - signalledAt;
      expect(code).to.equal(0);
      expect(elapsed, `exited after ${elapsed} ms`).to.be.below(1500 + 300);
      worker = await startWorkerProcess(redisEnv(redis.url, 'sigterm:', { PLACEHOLDER_JOB_MS: '50', ...FAST_RECOVERY }));
      const done = await pollJob(api, token, created.body.id, (job) => job.status === 'succeeded', 20_000);
      expect(done.attempts).to.equal(2);
    });
  });
});
