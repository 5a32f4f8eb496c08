import { spawn } from 'node:child_process';
import path from 'node:path';
import { repoRoot } from '../../../test/testkit/node-process';
import { BENCH_DIST } from '../../bench-processes';

/** Runs a built bench script with only PATH and TMPDIR; resolves with its exit code and everything it printed. */
export async function runBuilt(script: string, args: string[], tmpdir: string): Promise<{ code: unknown; output: string }> {
  const child = spawn(process.execPath, [path.join(BENCH_DIST, 'bench', script), ...args], {
    cwd: repoRoot(),
    env: { PATH: process.env.PATH ?? '', TMPDIR: tmpdir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve) => child.once('exit', (status, signal) => resolve(status ?? signal)));
  return { code, output };
}
