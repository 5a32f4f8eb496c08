import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { childEnv } from '../testkit/child-env';

/** The repository root, for spawning built entry points. */
export const ROOT = path.resolve(__dirname, '..', '..');

/** A spawned process with its output collected. */
export interface Spawned {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process has exited. */
  exited: Promise<number | string>;
}

/** Every process {@link spawnNode} started that has not exited, killed if the test run ends first. */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Spawns `node <entry> <args>` from the repo root with exactly `env` (plus PATH), collecting its output. A
 * process the test never stopped (a hook that timed out before it could) dies with the test run.
 */
export function spawnNode(entry: string, env: Record<string, string>, args: readonly string[] = []): Spawned {
  const child = spawn(process.execPath, [path.join(ROOT, entry), ...args], {
    cwd: ROOT,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk) => (out += chunk));
  child.stderr!.on('data', (chunk) => (err += chunk));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stdout: () => out, stderr: () => err, exited };
}
