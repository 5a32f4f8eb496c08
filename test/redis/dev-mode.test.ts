import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { BASE_ENV, newKey } from '../support/harness';
import { npmScriptCommand } from '../support/npm-script';
import { OpenApiResponseChecker } from '../support/openapi-check';
import { childEnv } from '../testkit/child-env';
import { freePort, freePortBeside } from '../testkit/free-port';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

describe('npm run dev (scripts/dev.ts) with REDIS_URL set', function () {
  this.timeout(60_000);
  let redis: TestRedis;
  let workdir: string;
  let child: ChildProcess;
  let output = '';
  let base: string;

  before(async () => {
    redis = await startRedis();
    // dev.ts reads (or writes) .env in its working directory: give it a private one, already complete.
    workdir = mkdtempSync(path.join(tmpdir(), 'connector-dev-'));
    writeFileSync(path.join(workdir, '.env'), '', { mode: 0o600 });
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const { command, args } = npmScriptCommand('dev');
    child = spawn(command, args, {
      cwd: workdir,
      env: {
        ...childEnv(),
        ...BASE_ENV,
        PORT: String(port),
        METRICS_PORT: String(await freePortBeside(port)),
        REDIS_URL: redis.url,
        REDIS_KEY_PREFIX: 'dev:',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk) => (output += chunk));
    child.stderr!.on('data', (chunk) => (output += chunk));
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
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await redis?.stop();
    if (workdir) rmSync(workdir, { recursive: true, force: true });
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
    expect(output).to.not.include('REDIS_URL is not set');
    expect(output).to.match(/"backend":"redis","runs_jobs":true/);
    expect(readdirSync(workdir)).to.deep.equal(['.env']);
  });

  it('on SIGTERM the API and its in-process worker shut down and the process exits 0', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).to.equal(0);
    expect(output).to.include('"msg":"shutting down"');
  });
});
