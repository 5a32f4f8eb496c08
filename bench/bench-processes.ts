import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot } from '../test/testkit/node-process';
import { waitFor } from '../test/testkit/wait-for';

/** The bench package's folder, whether this runs from its sources or from its build. */
export const BENCH_ROOT = path.join(repoRoot(), 'bench');

/** The bench's own built tree (`bench/dist/`): its baselines run from it, as the connector runs from `dist/`. */
export const BENCH_DIST = path.join(BENCH_ROOT, 'dist');

/** A path the person running the bench typed, relative to where they ran npm (`INIT_CWD`), not to `bench/`. */
export function fromInvocation(file: string): string {
  return path.resolve(process.env.INIT_CWD ?? process.cwd(), file);
}

/**
 * Polls `probe` every 50 ms until it holds or `timeoutMs` passes ({@link waitFor}); a probe that throws
 * {@link GiveUp} (a process that exited) ends the wait at once with that error.
 */
export async function waitUntil(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await waitFor(probe, { timeoutMs, intervalMs: 50, what });
}

/** A private `redis-server` (testkit's launcher): loopback only, no persistence, `noeviction`. */
export { startRedis } from '../test/testkit/redis-node';

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

/** The machine's load averages (1, 5 and 15 minutes) as a script prints them beside its figures. */
export function loadAverage(): string {
  return os
    .loadavg()
    .map((load) => round(load, 1))
    .join(', ');
}
