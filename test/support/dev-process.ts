import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { childEnv } from '../testkit/child-env';
import { freePorts } from '../testkit/free-port';
import { BASE_ENV } from './harness';
import { npmScriptCommand } from './npm-script';
import { ROOT } from './spawn-process';

/** A running `npm run dev` with its collected output and the ports it was given. */
export interface DevProcess {
  child: ChildProcess;
  output(): string;
  base: string;
  port: number;
  metricsPort: number;
  workdir: string;
}

/**
 * `npm run dev` (scripts/dev.ts, or `entry` that loads it, through tsx's loader in one process) with `BASE_ENV`
 * plus `extraEnv` and a private working directory (an empty `.env`, so nothing is generated into the
 * repository); stdout and stderr are collected together. `npm run dev:x402` is `entry` scripts/x402/dev-x402.ts.
 */
export async function startDev(extraEnv: Record<string, string>, entry = path.join(ROOT, 'scripts', 'dev.ts')): Promise<DevProcess> {
  const workdir = mkdtempSync(path.join(tmpdir(), 'connector-dev-'));
  writeFileSync(path.join(workdir, '.env'), '', { mode: 0o600 });
  const [port, metricsPort] = await freePorts(2);
  const { command, args } = npmScriptCommand('dev', entry);
  const child = spawn(command, args, {
    cwd: workdir,
    env: childEnv({ ...BASE_ENV, PORT: String(port), METRICS_PORT: String(metricsPort), ...extraEnv }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return { child, output: () => output, base: `http://127.0.0.1:${port}`, port, metricsPort, workdir };
}

/** Stops a dev process with SIGTERM, as a terminal or a container runtime would, and removes its directory. */
export async function stopDev(dev: Pick<DevProcess, 'child' | 'workdir'>): Promise<void> {
  if (dev.child.exitCode === null && dev.child.signalCode === null) {
    const exited = new Promise((resolve) => dev.child.once('exit', resolve));
    dev.child.kill('SIGTERM');
    await exited;
  }
  rmSync(dev.workdir, { recursive: true, force: true });
}
