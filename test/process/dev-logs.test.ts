import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort } from '../../testkit/free-port';
import { BASE_ENV } from '../support/harness';
import { ROOT } from '../support/spawn-process';
import { waitFor } from '../../testkit/wait-for';

/** `npm run dev` (scripts/dev.ts through tsx) with a private working directory; its output is collected. */
async function startDev(extraEnv: Record<string, string>): Promise<{ child: ChildProcess; output(): string; base: string; workdir: string }> {
  const workdir = mkdtempSync(path.join(tmpdir(), 'connector-dev-logs-'));
  writeFileSync(path.join(workdir, '.env'), '', { mode: 0o600 });
  const port = await freePort();
  const child = spawn(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [path.join(ROOT, 'scripts', 'dev.ts')], {
    cwd: workdir,
    env: { PATH: process.env.PATH ?? '', ...BASE_ENV, PORT: String(port), METRICS_PORT: String(await freePort()), ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { child, output: () => output, base: `http://127.0.0.1:${port}`, workdir };
}

async function stop(dev: { child: ChildProcess; workdir: string }): Promise<void> {
  // SIGTERM, not SIGKILL: tsx relays only the signals it receives to the script.
  if (dev.child.exitCode === null && dev.child.signalCode === null) {
    const exited = new Promise((resolve) => dev.child.once('exit', resolve));
    dev.child.kill('SIGTERM');
    await exited;
  }
  rmSync(dev.workdir, { recursive: true, force: true });
}

describe('npm run dev log lines (scripts/dev.ts)', function () {
  this.timeout(60_000);

  it('writes JSON lines when stdout is not a terminal', async () => {
    const dev = await startDev({});
    try {
      await waitFor(() => /api listening/.test(dev.output()), { timeoutMs: 30_000, what: 'the api listening line' });
      const line = dev.output().split('\n').find((l) => l.includes('api listening'))!;
      expect(JSON.parse(line)).to.include({ msg: 'api listening', backend: 'memory' });
    } finally {
      await stop(dev);
    }
  });

  it('writes one human-readable line per entry with LOG_FORMAT=pretty (the terminal path), secrets still absent', async () => {
    const dev = await startDev({ LOG_FORMAT: 'pretty' });
    try {
      await waitFor(() => /api listening/.test(dev.output()), { timeoutMs: 30_000, what: 'the api listening line' });
      await fetch(`${dev.base}/v1/me`, { headers: { authorization: 'Bearer not-a-real-token' } });
      await waitFor(() => /"\/v1\/me"/.test(dev.output()), { what: 'the access line' });
      const lines = dev.output().split('\n');
      const listening = lines.find((l) => l.includes('api listening'))!;
      expect(listening).to.match(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(connector-dev\): api listening \{.*"backend":"memory"/);
      expect(lines.find((l) => l.includes('"/v1/me"'))).to.match(/^\[[\d:.]+\] INFO \(connector-dev\): request \{.*"status":401/);
      expect(lines.filter((l) => l.startsWith('{')), 'no JSON line').to.deep.equal([]);
      expect(dev.output()).not.to.include('not-a-real-token').and.not.to.include(BASE_ENV.LINK_SECRET);
    } finally {
      await stop(dev);
    }
  });
});
