import { expect } from 'chai';
import { newKey, newSubject } from '../support/harness';
import { pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { measurement } from '../support/measurement';
import { type ApiUnderTest, type ProcessUnderTest, redisEnv, startApiProcess, startWorkerProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

/** How long a request may take to answer 503 once Redis is gone: the command timeout (2 s default) plus margin. */
const OUTAGE_BOUND_MS = 3000;

async function usage(api: ApiUnderTest, token: string): Promise<{ jobs_charged: number; credits_spent: number }> {
  const me = await api.call('GET', '/v1/me', { token });
  expect(me.status, me.text).to.equal(200);
  return me.body.usage;
}

describe('two built API processes and a built worker sharing one private Redis', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let env: Record<string, string>;
  let a: ApiUnderTest;
  let b: ApiUnderTest;
  let worker: ProcessUnderTest;

  before(async () => {
    redis = await startRedis();
    env = redisEnv(redis.url, 'multi:', { PLACEHOLDER_JOB_MS: '50' });
    [a, b, worker] = await Promise.all([startApiProcess(env), startApiProcess(env), startWorkerProcess(env)]);
    await waitFor(() => a.call('GET', '/readyz').then((r) => r.status === 200), { what: 'API A ready' });
    await waitFor(() => b.call('GET', '/readyz').then((r) => r.status === 200), { what: 'API B ready' });
  });
  after(async () => {
    await Promise.all([a?.kill(), b?.kill(), worker?.kill()]);
    await redis?.stop();
  });

  it('neither API process prints the in-memory warning, and neither runs jobs', () => {
    for (const api of [a, b]) {
      expect(api.proc.stdout()).to.not.include('REDIS_URL is not set');
      const listening = api.logLines().find((line) => line.msg === 'api listening');
      expect(listening).to.include({ backend: 'redis', runs_jobs: false });
    }
  });

  it('a token minted through one API process works on the other', async () => {
    const subject = newSubject();
    const { token, connection_id } = await a.link(subject);
    const me = await b.call('GET', '/v1/me', { token });
    expect(me.status, me.text).to.equal(200);
    expect(me.body).to.include({ subject, connection_id });
  });

  it('a revocation through one API process is refused by the other on the very next request', async () => {
    const { token, connection_id } = await a.link(newSubject());
    expect((await b.call('GET', '/v1/me', { token })).status).to.equal(200);
    const revoked = await a.call('POST', '/v1/link/revoke', { body: { connection_id }, headers: { 'x-link-secret': env.LINK_SECRET } });
    expect(revoked.status, revoked.text).to.equal(200);
    expect(revoked.body).to.deep.equal({ revoked: 1 });
    const refused = await b.call('GET', '/v1/me', { token });
    expect(refused.status).to.equal(401);
    expect(refused.headers.get('www-authenticate')).to.match(/^Bearer /);
  });

  it('200 concurrent same-key POST /v1/jobs split across both give one job, one charge and one non-replayed answer', async () => {
    const { token } = await a.link(newSubject());
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => submitPrompt(i % 2 === 0 ? a : b, token, 'once only', { key })),
    );
    expect(answers.map((r) => r.status)).to.deep.equal(Array(200).fill(202));
    expect(new Set(answers.map((r) => r.body.id)).size).to.equal(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') !== 'true')).to.have.length(1);
    expect(answers.filter((r) => r.headers.get('idempotent-replayed') === 'true')).to.have.length(199);
    const done = await pollJob(b, token, answers[0].body.id, (job) => job.status === 'succeeded');
    expect(done.attempts).to.equal(1);
    expect(await usage(a, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    const list = await b.call('GET', '/v1/jobs', { token });
    expect(list.body.items.map((job: { id: string }) => job.id)).to.deep.equal([answers[0].body.id]);
  });

  it('the same key with another payload answers 422 on either process and charges nothing more', async () => {
    const { token } = await a.link(newSubject());
    const key = newKey();
    expect((await submitPrompt(a, token, 'first', { key })).status).to.equal(202);
    const conflict = await submitPrompt(b, token, 'second', { key });
    expect(conflict.status).to.equal(422);
    expect(await usage(b, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
  });

  it('things created through one process page correctly through the other', async () => {
    const { token } = await a.link(newSubject());
    for (const name of ['one', 'two', 'three'])
      expect((await (name === 'two' ? b : a).call('POST', '/v1/things', { token, body: { name } })).status).to.equal(201);
    const page1 = await b.call('GET', '/v1/things?limit=2', { token });
    expect(page1.body.items.map((t: { name: string }) => t.name)).to.deep.equal(['three', 'two']);
    const page2 = await a.call('GET', `/v1/things?limit=2&cursor=${page1.body.next_cursor}`, { token });
    expect(page2.body.items.map((t: { name: string }) => t.name)).to.deep.equal(['one']);
    expect(page2.body.next_cursor).to.equal(null);
  });

  it('state survives an API restart: token, usage, things and jobs are all still there', async () => {
    const { token } = await a.link(newSubject());
    expect((await a.call('POST', '/v1/things', { token, body: { name: 'kept' } })).status).to.equal(201);
    const job = await submitPrompt(a, token, 'kept job');
    await pollJob(a, token, job.body.id, (j) => j.status === 'succeeded');
    expect(await a.stop()).to.equal(0);
    a = await startApiProcess(env);
    const me = await a.call('GET', '/v1/me', { token });
    expect(me.status, me.text).to.equal(200);
    expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    expect((await a.call('GET', '/v1/things', { token })).body.items.map((t: { name: string }) => t.name)).to.deep.equal(['kept']);
    const again = await a.call('GET', `/v1/jobs/${job.body.id}`, { token });
    expect(again.body).to.include({ id: job.body.id, status: 'succeeded' });
  });

  it('Redis killed: requests answer 503 problem+json with Retry-After within the bound, /readyz 503, descriptions still served', async () => {
    const { token } = await a.link(newSubject());
    await redis.kill();
    const killedAt = Date.now();
    for (const [api, method, path, body] of [
      [a, 'GET', '/v1/me', undefined],
      [b, 'POST', '/v1/things', { name: 'during outage' }],
      [a, 'POST', '/v1/jobs', { input: { prompt: 'during outage' } }],
      [b, 'GET', '/v1/jobs', undefined],
    ] as const) {
      const started = Date.now();
      const res = await api.call(method, path, {
        token,
        body,
        headers: method === 'POST' && path === '/v1/jobs' ? { 'idempotency-key': newKey() } : {},
      });
      const elapsed = Date.now() - started;
      expect(res.status, `${method} ${path}: ${res.text}`).to.equal(503);
      expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect(res.headers.get('retry-after')).to.match(/^\d+$/);
      expect(res.body).to.include({ status: 503 });
      expect(res.text).to.not.match(/ECONNREFUSED|Stream|ioredis|enableOfflineQueue/);
      expect(elapsed, `${method} ${path} took ${elapsed} ms`).to.be.below(OUTAGE_BOUND_MS);
    }
    measurement(`      first 503s within ${Date.now() - killedAt} ms of the kill (4 requests)`);
    for (const api of [a, b]) {
      const ready = await api.call('GET', '/readyz');
      expect(ready.status).to.equal(503);
      expect(ready.headers.get('content-type')).to.match(/^application\/problem\+json/);
      expect((await api.call('GET', '/healthz')).status).to.equal(200);
      expect((await api.call('GET', '/openapi.json')).status).to.equal(200);
      expect((await api.call('GET', '/llms.txt')).status).to.equal(200);
    }
    expect((await fetch(`http://127.0.0.1:${worker.metricsPort}/readyz`)).status).to.equal(503);
    const metrics = await (await fetch(`http://127.0.0.1:${a.metricsPort}/metrics`)).text();
    expect(metrics).to.match(/^connector_redis_up 0$/m);
  });

  it('Redis restarted: both APIs and the worker recover by themselves and a new job runs to success', async () => {
    const restartedAt = Date.now();
    await redis.restart();
    await waitFor(async () => (await a.call('GET', '/readyz')).status === 200 && (await b.call('GET', '/readyz')).status === 200, {
      timeoutMs: 15_000,
      what: 'both APIs ready',
    });
    await waitFor(() => fetch(`http://127.0.0.1:${worker.metricsPort}/readyz`).then((r) => r.status === 200), {
      timeoutMs: 15_000,
      what: 'worker ready',
    });
    const readyMs = Date.now() - restartedAt;
    // The restarted server is empty (--save ""), so the earlier tokens are gone: link anew.
    const { token } = await a.link(newSubject());
    const job = await submitPrompt(b, token, 'after the outage');
    expect(job.status, job.text).to.equal(202);
    await pollJob(a, token, job.body.id, (j) => j.status === 'succeeded');
    measurement(`      all three processes ready ${readyMs} ms after the restart; a job ran ${Date.now() - restartedAt} ms after it`);
    expect(worker.proc.child.exitCode).to.equal(null);
    const metrics = await (await fetch(`http://127.0.0.1:${b.metricsPort}/metrics`)).text();
    expect(metrics).to.match(/^connector_redis_up 1$/m);
  });
});

describe('a job accepted while no worker runs', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let api: ApiUnderTest;
  let worker: ProcessUnderTest | undefined;

  before(async () => {
    redis = await startRedis();
    api = await startApiProcess(redisEnv(redis.url, 'noworker:', { PLACEHOLDER_JOB_MS: '50' }));
  });
  after(async () => {
    await Promise.all([api?.kill(), worker?.kill()]);
    await redis?.stop();
  });

  it('stays queued while no worker runs, then succeeds once a worker starts', async () => {
    const { token } = await api.link(newSubject());
    const created = await submitPrompt(api, token, 'waiting');
    expect(created.status).to.equal(202);
    // The API process itself must never pick the job up: it stays queued through repeated polls.
    for (let i = 0; i < 10; i++) {
      const polled = await api.call('GET', `/v1/jobs/${created.body.id}`, { token });
      expect(polled.body).to.include({ status: 'queued', attempts: 0, started_at: null });
      expect(polled.headers.get('retry-after')).to.match(/^\d+$/);
    }
    const metrics = await (await fetch(`http://127.0.0.1:${api.metricsPort}/metrics`)).text();
    expect(metrics).to.match(/^connector_queue_jobs\{state="queued"\} 1$/m);
    worker = await startWorkerProcess(redisEnv(redis.url, 'noworker:', { PLACEHOLDER_JOB_MS: '50' }));
    const done = await pollJob(api, token, created.body.id, (job) => job.status === 'succeeded');
    expect(done.result).to.include({ summary: 'waiting', words: 1 });
    expect(await usage(api, token)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
  });
});
