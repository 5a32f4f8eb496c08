import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { freePort } from '../testkit/free-port';
import { GiveUp, waitFor } from '../testkit/wait-for';

export { freePort };
import path from 'node:path';

/** The built tree's root (`dist/`): every process the bench starts runs from it, exactly as `npm start` would. */
export const DIST = path.resolve(__dirname, '..');

/** The nearest directory above the running file that holds package.json: the same from dist/ and from source. */
export function repoRoot(): string {
  let dir = DIST;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('no package.json above the bench');
    dir = parent;
  }
  return dir;
}

/**
 * The Node flags production starts the connector with: those of `npm start` (the image's CMD is the same,
 * `test/k8s/dockerfile.test.ts`). Every process of the bench, baselines included, is started with them.
 */
export const NODE_FLAGS: readonly string[] = (() => {
  const pkg = JSON.parse(readFileSync(path.join(repoRoot(), 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = pkg.scripts.start.split(' ');
  return words.slice(1, -1);
})();

/** A child process the bench owns and stops itself. */
export interface BenchProcess {
  readonly name: string;
  readonly child: ChildProcess;
  /** What it printed, for the error when it fails to start or dies mid-run. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Polls `probe` every 50 ms until it holds or `timeoutMs` passes ({@link waitFor}); a probe that throws
 * {@link GiveUp} (a process that exited) ends the wait at once with that error.
 */
export async function waitUntil(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await waitFor(probe, { timeoutMs, intervalMs: 50, what });
}

/** Where every process's output goes: a file, so that nothing in the bench process has to read it under load. */
let logDir = '';

/** Sets the directory for the processes' log files (one `<name>.log` each). */
export function setLogDir(dir: string): void {
  logDir = dir;
}

function logFile(name: string): { path: string; fd: number } {
  const file = path.join(logDir, `${name}.log`);
  return { path: file, fd: openSync(file, 'a') };
}

/** Stops a child: SIGTERM, then SIGKILL if it has not exited within 5 s; resolves once it has exited. */
export function stopChild(child: ChildProcess, exited: Promise<void>): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
}

function own(name: string, child: ChildProcess, log: string): BenchProcess {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    name,
    child,
    // Only the tail matters (a start-up error or the last lines before a crash).
    output: () => readFileSync(log, 'utf8').slice(-4000),
    stop: stopChild(child, exited),
  };
}

/**
 * Starts a built entry point (`api/main.js`, `worker/main.js`, `bench/bare-server.js`, …) with exactly `env`
 * (plus PATH) and waits until `ready` holds. Every Node process is started the same way (production's
 * {@link NODE_FLAGS}), so the baseline and the connector pay the same start-up flags and environment.
 * `root` is the built tree (this one unless another build is being compared with it). With `cgroupProcs`
 * (a cgroup's `cgroup.procs`, `memory-cgroup.ts`) the process joins that cgroup before Node starts, so Node
 * sizes its heap under the cgroup's limit as in a container.
 */
export async function startNode(
  name: string,
  entry: string,
  env: Record<string, string>,
  ready: (output: () => string) => Promise<boolean>,
  nodeArgs: string[] = [],
  root = DIST,
  cgroupProcs?: string,
): Promise<BenchProcess> {
  const log = logFile(name);
  const command = [process.execPath, ...NODE_FLAGS, ...nodeArgs, path.join(root, entry)];
  // The shell writes its own pid into the cgroup, then becomes Node: the child's pid stays the one measured.
  const [file, ...args] = cgroupProcs ? ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', cgroupProcs, ...command] : command;
  const child = spawn(file, args, {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', ...env },
    stdio: ['ignore', log.fd, log.fd],
  });
  closeSync(log.fd);
  const proc = own(name, child, log.path);
  try {
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new GiveUp(`${name} exited with ${child.exitCode}: ${proc.output()}`);
        return ready(proc.output);
      },
      20_000,
      name,
    );
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return proc;
}

/** True when something accepts TCP connections on the loopback port. */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** True when `url` answers 2xx. */
export async function answers(url: string): Promise<boolean> {
  const response = await fetch(url).catch(() => undefined);
  return response?.ok ?? false;
}

/** A private `redis-server` (testkit's launcher): loopback only, no persistence, `noeviction`. */
export { startRedis } from '../testkit/redis-node';

/** The version of the machine's `redis-server`, for the results. */
export function redisVersion(): string {
  const banner = execFileSync('redis-server', ['--version'], { encoding: 'utf8' });
  return /v=(\S+)/.exec(banner)?.[1] ?? banner.trim();
}

/** Resident and peak resident memory of a process in MB, from /proc (Linux); null elsewhere. */
export function residentMemory(pid: number | undefined): { rssMb: number; peakRssMb: number } | null {
  if (pid === undefined) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: round(kb('VmRSS') / 1024, 1), peakRssMb: round(kb('VmHWM') / 1024, 1) };
  } catch {
    return null;
  }
}

/** Rounds to `digits` decimals. */
export function round(value: number, digits = 2): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

/**
 * CPU time (user + system) a process has used so far, in milliseconds, from /proc (Linux); null elsewhere.
 * CPU per request or per job is far steadier than throughput on a machine others are loading too.
 */
export function cpuTimeMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return null;
  }
}

/** USER_HZ: 100 on every Linux Node supports. */
const CLOCK_TICKS = 100;

/**
 * Read and write system calls a process has made so far, from /proc (Linux); null elsewhere. Every socket
 * write to a client or to Redis is one, so their count per request shows batching exactly, whatever the load.
 */
export function syscalls(pid: number | undefined): { reads: number; writes: number } | null {
  if (pid === undefined) return null;
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    return { reads: Number(/^syscr: (\d+)/m.exec(io)?.[1]), writes: Number(/^syscw: (\d+)/m.exec(io)?.[1]) };
  } catch {
    return null;
  }
}
