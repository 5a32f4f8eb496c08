import os from 'node:os';
import path from 'node:path';
import { BENCH_ROOT, fromInvocation } from './bench-processes';

// The run's settings, from its flags (`--smoke`, `--out <file>`) and BENCH_* variables.
const args = process.argv.slice(2);
const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

/** `--smoke`: every scenario briefly (CI and the smoke test). */
export const SMOKE = args.includes('--smoke');

/** Where results.json goes: `--out`, else bench/results.json for a full run and a temporary file for a smoke run. */
export const OUT = args.includes('--out')
  ? fromInvocation(args[args.indexOf('--out') + 1])
  : SMOKE
    ? path.join(os.tmpdir(), 'connector-bench-smoke.json')
    : path.join(BENCH_ROOT, 'results.json');

/** How hard and how long each part of the run loads its target (written into results.json). */
export const SETTINGS = {
  durationSeconds: env('BENCH_SECONDS', SMOKE ? 1 : 10),
  connections: env('BENCH_CONNECTIONS', SMOKE ? 10 : 50),
  workerConcurrency: env('BENCH_WORKER_CONCURRENCY', 4),
  drainJobs: env('BENCH_DRAIN_JOBS', SMOKE ? 200 : 30_000),
  /** (g) is the median of this many pairs of drains (`drain-pairs.ts`). */
  drainPairs: env('BENCH_DRAIN_PAIRS', SMOKE ? 1 : 5),
  latencyRatePerSecond: env('BENCH_LATENCY_RATE', 200),
  latencySeconds: env('BENCH_LATENCY_SECONDS', SMOKE ? 1 : 10),
};

/**
 * The cluster runs (bench/README.md, "Redis Cluster"): fresh paid jobs from `subjects` subjects in turn for
 * `seconds` per topology and round, the topologies taking turns `rounds` times, then a drain of `drainJobs`
 * on each. `--no-cluster` leaves them out (the results then say so).
 */
export const CLUSTER_SETTINGS = {
  enabled: !args.includes('--no-cluster'),
  seconds: env('BENCH_CLUSTER_SECONDS', SMOKE ? 1 : 5),
  rounds: env('BENCH_CLUSTER_ROUNDS', SMOKE ? 1 : 2),
  subjects: env('BENCH_CLUSTER_SUBJECTS', SMOKE ? 6 : 30),
  drainJobs: env('BENCH_CLUSTER_DRAIN_JOBS', SMOKE ? 200 : 5000),
};

/** Unrecorded load before each HTTP scenario, so that the JIT has settled when the clock starts. */
export const WARMUP_SECONDS = SMOKE ? 0 : 2;

/** The whole run stops by itself, whatever hangs. */
export const WATCHDOG_MS = SMOKE ? 240_000 : 900_000;

/** Set to a directory to write V8 CPU profiles of the API and the worker (`node --cpu-prof`). */
export const PROFILE_DIR = process.env.BENCH_CPU_PROF_DIR;

/**
 * `--no-memory-limits`: run without the chart's memory limits. By default every process starts in a memory
 * cgroup with its container's limit (`memory-charge.ts`), and the run reports the cgroups' charges.
 */
export const MEMORY_LIMITS = !args.includes('--no-memory-limits');
