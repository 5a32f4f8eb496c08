import { readdirSync } from 'node:fs';
import { expect } from 'chai';
import { type DevProcess, startDev, stopDev } from '../support/dev-process';
import { BASE_ENV, newKey } from '../support/harness';
import { OpenApiResponseChecker } from '../support/openapi-check';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

describe('npm run dev (scripts/dev.ts) with REDIS_URL set', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let dev: DevProcess;
  let base: string;

  before(async () => {
    redis = await startRedis();
    // dev.ts reads (or writes) .env in its working directory: startDev gives it a private one, already complete.
    dev = await startDev({ REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'dev:' });
    base = dev.base;
    await waitFor(
      () =>
        fetch(`${base}/readyz`).then(
          (r) => r.status === 200,
          () => false,
        ),
      { timeoutMs: 30_000, what: 'npm run dev to be ready' },
    );
  });
  after(async () => {
    // SIGTERM, not SIGKILL: the shutdown the last test checks, for a run that ended before it.
    if (dev) await stopDev(dev);
    await redis?.stop();
  });

  it('runs the API and a worker in one process: a job succeeds with no separate worker, and no memory warning', async () => {
    const checker = new OpenApiResponseChecker((await (await fetch(`${base}/openapi.json`)).json()) as Record<string, any>);
    const call = async (method: string, p: string, init: { headers?: Record<string, string>; body?: unknown } = {}) => {
      const response = await fetch(`${base}${p}`, {
        method,
        headers: { ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
        body: init.body ? JSON.stringify(init.body) : undefined,
      });
      const text = await response.text();
      checker.check({ method, path: p, status: response.status, headers: response.headers, text });
      return { status: response.status, body: JSON.parse(text) };
    };
    const linked = await call('POST', '/v1/link', {
      headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      body: { subject: 'dev@example.com' },
    });
    expect(linked.status).to.equal(201);
    const auth = { authorization: `Bearer ${linked.body.token}` };
    const job = await call('POST', '/v1/jobs', {
      headers: { ...auth, 'idempotency-key': newKey() },
      body: { input: { prompt: 'dev mode' } },
    });
    expect(job.status).to.equal(202);
    const done = await waitFor(
      async () => {
        const polled = await call('GET', `/v1/jobs/${job.body.id}`, { headers: auth });
        return polled.body.status === 'succeeded' ? polled.body : undefined;
      },
      { what: 'the job to succeed' },
    );
    expect(done.result).to.include({ summary: 'dev mode' });
    expect(dev.output()).to.not.include('REDIS_URL is not set');
    expect(dev.output()).to.match(/"backend":"redis","runs_jobs":true/);
    expect(readdirSync(dev.workdir)).to.deep.equal(['.env']);
  });

  it('on SIGTERM the API and its in-process worker shut down and the process exits 0', async () => {
    const exited = new Promise<number | null>((resolve) => dev.child.once('exit', (code) => resolve(code)));
    dev.child.kill('SIGTERM');
    expect(await exited).to.equal(0);
    expect(dev.output()).to.include('"msg":"shutting down"');
  });
});
