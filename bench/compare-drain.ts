import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { singleNodeConnection } from '../shared/config/redis-settings';
import { JOB_QUEUE_NAME, RedisKeys } from '../shared/redis/redis-keys';
import { round, setLogDir, startRedis } from './bench-processes';
import { benchClient, closeBenchClients } from './bench-redis';
import { oneNodeEnv, startWorker, stopAll, track } from './connector-processes';
import { drain, openQueue } from './job-load';
import { memoryCgroup, type MemoryCgroup } from './memory-cgroup';

// `npm run bench:compare-drain -- <build> <build> [--pairs 8] [--jobs 10000] [--memory-limit <MiB>]`: the
// workers of two built trees (a `dist/` each; Node flags after `@`, as in bench:compare) on one Redis, each
// under its own key prefix, draining the same placeholder jobs in turns: pair after pair, the two taking
// turns at going first. Prints each pair and the median of the paired ratios of jobs/s and of worker CPU
// per job. `--memory-limit` starts each worker in a memory cgroup with that limit (Linux, root).

function option(name: string, fallback: string): string {
  const args = process.argv.slice(2);
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
}

const median = (values: number[]): number => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const trees = process.argv.slice(2).filter((arg, i, args) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--'));
  if (trees.length !== 2) throw new Error('name two built trees (dist directories) to compare');
  const pairs = Number(option('pairs', '8'));
  const jobs = Number(option('jobs', '10000'));
  const limitMiB = option('memory-limit', '');
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'connector-compare-drain-'));
  setLogDir(logDir);
  const redis = await track(startRedis());
  const client = await benchClient(singleNodeConnection(redis.url), 'compare-drain');
  const cgroups: MemoryCgroup[] = [];
  const sides: Array<{ label: string; queue: Awaited<ReturnType<typeof openQueue>>; pid: number | undefined }> = [];
  for (const [i, tree] of trees.entries()) {
    const [root, ...nodeArgs] = tree.split('@');
    const keyPrefix = `compare-${i}:`;
    const cgroup = limitMiB ? memoryCgroup(`connector-compare-drain-${process.pid}-${i}`, Number(limitMiB)) : undefined;
    if (cgroup) cgroups.push(cgroup);
    const worker = await startWorker(oneNodeEnv(redis.url), `worker-${i}`, { root: path.resolve(root), nodeArgs, keyPrefix, cgroupProcs: cgroup?.procsFile });
    const queue = await openQueue(client, JOB_QUEUE_NAME, new RedisKeys(keyPrefix).bullPrefix);
    sides.push({ label: tree, queue, pid: worker.child.pid });
  }
  const once = (side: (typeof sides)[number], measured: boolean) =>
    drain({ client, queues: [side.queue] }, jobs, 'createJob', measured ? { workerPid: side.pid, redisPid: redis.child.pid } : {});
  // An unmeasured drain each first: the first one is a start-up figure (JIT, heap growth).
  for (const side of sides) await once(side, false);
  const speed: number[] = [];
  const cpu: number[] = [];
  for (let pair = 0; pair < pairs; pair += 1) {
    const order = pair % 2 === 0 ? [0, 1] : [1, 0];
    const figures: Awaited<ReturnType<typeof once>>[] = [];
    for (const i of order) figures[i] = await once(sides[i], true);
    const [first, second] = figures;
    speed.push(second.jobsPerSecond / first.jobsPerSecond);
    if (first.workerCpuUsPerJob && second.workerCpuUsPerJob) cpu.push(second.workerCpuUsPerJob / first.workerCpuUsPerJob);
    process.stdout.write(`pair ${pair + 1}: ${figures.map((f, i) => `${sides[i].label} ${f.jobsPerSecond} jobs/s, ${f.workerCpuUsPerJob ?? 'n/a'} µs CPU/job`).join('; ')}\n`);
  }
  process.stdout.write(`\n${sides[1].label} against ${sides[0].label}, median of ${pairs} pairs: jobs/s ×${round(median(speed), 3)} (ratios ${speed.map((r) => round(r, 2)).join(', ')})`);
  process.stdout.write(cpu.length > 0 ? `, worker CPU per job ×${round(median(cpu), 3)}\n` : '\n');
  for (const side of sides) await side.queue.close();
  await closeBenchClients();
  await stopAll();
  for (const cgroup of cgroups) cgroup.remove();
  rmSync(logDir, { recursive: true, force: true });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`compare-drain failed: ${error instanceof Error ? error.stack : String(error)}\n`);
    void stopAll().finally(() => process.exit(1));
  },
);
