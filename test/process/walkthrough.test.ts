import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { npmScriptCommand } from '../support/npm-script';
import { ROOT } from '../support/spawn-process';
import { childEnv } from '../testkit/child-env';
import { freePorts } from '../testkit/free-port';
import { waitFor } from '../testkit/wait-for';

/** The README's walk-through, exactly as a person copies it. */
function walkthrough(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const match = /<!-- walkthrough:start -->\s*```sh\n([\s\S]*?)```\s*<!-- walkthrough:end -->/.exec(readme);
  if (!match) throw new Error('README.md has no walkthrough block');
  return match[1];
}

function startDev(cwd: string, env: Record<string, string>) {
  const { command, args } = npmScriptCommand('dev');
  const child = spawn(command, args, {
    cwd,
    env: childEnv({ HOME: os.tmpdir(), ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (out += chunk));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    output: () => out,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe('npm run dev on a fresh checkout, and the README walk-through', () => {
  let dir: string;
  let port: number;
  let dev: ReturnType<typeof startDev>;
  before(async function () {
    this.timeout(60_000);
    dir = mkdtempSync(path.join(os.tmpdir(), 'connector-dev-'));
    copyFileSync(path.join(ROOT, '.env.example'), path.join(dir, '.env.example'));
    let metricsPort: number;
    [port, metricsPort] = await freePorts(2);
    dev = startDev(dir, { PORT: String(port), METRICS_PORT: String(metricsPort) });
    await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok), { timeoutMs: 45_000, what: 'npm run dev to listen' });
  });
  after(async () => {
    await dev?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates .env from .env.example with fresh random secrets, readable only by its owner, and says so', () => {
    const env = readFileSync(path.join(dir, '.env'), 'utf8');
    expect(dev.output()).to.contain('Created .env');
    const secret = /^CONNECTOR_SECRET=(.*)$/m.exec(env)![1];
    const linkSecret = /^LINK_SECRET=(.*)$/m.exec(env)![1];
    expect(secret).to.have.length.of.at.least(32).and.not.equal('replaced-on-first-run');
    expect(linkSecret).to.have.length.of.at.least(32).and.not.equal('replaced-on-first-run');
    expect(statSync(path.join(dir, '.env')).mode & 0o077).to.equal(0);
  });

  it('serves the README walk-through unchanged: link, me, a job polled to success, a replayed retry, one credit', () => {
    const run = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', walkthrough()], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', BASE: `http://127.0.0.1:${port}` },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status, run.stderr + run.stdout).to.equal(0);
    expect(run.stdout).to.match(/"subject":"alice@example.com"/);
    expect(run.stdout).to.match(/^job: job_/m);
    expect(run.stdout).to.match(/^status: succeeded$/m);
    expect(run.stdout).to.match(/^HTTP\/1.1 202/m);
    expect(run.stdout).to.match(/^Idempotent-Replayed: true/im);
    expect(run.stdout.trim().split('\n').pop()).to.equal('1');
  });

  it('a second start keeps the existing .env, and a variable set in the environment wins over it', async () => {
    const before = readFileSync(path.join(dir, '.env'), 'utf8');
    await dev.stop();
    // Two distinct ports: the kernel may hand the same one out twice in a row, and a metrics server on the API's
    // port answers /healthz too, then 405 to the link.
    const [apiPort, metricsPort] = await freePorts(2);
    port = apiPort;
    const fromEnvironment = 'from-the-environment-0123456789abcdef';
    dev = startDev(dir, { PORT: String(port), METRICS_PORT: String(metricsPort), LINK_SECRET: fromEnvironment });
    await waitFor(() => fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok), { timeoutMs: 20_000, what: 'restart' });
    expect(readFileSync(path.join(dir, '.env'), 'utf8')).to.equal(before);
    expect(dev.output()).to.not.contain('Created .env');
    const res = await fetch(`http://127.0.0.1:${port}/v1/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-link-secret': fromEnvironment },
      body: '{"subject":"env-wins"}',
    });
    expect(res.status).to.equal(201);
  });
});
