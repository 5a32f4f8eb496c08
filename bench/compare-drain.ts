import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { singleNodeConnection } from '../shared/config/redis-settings';
import { JOB_QUEUE_NAME, RedisKeys } from '../shared/redis/redis-keys';
import { round, setLogDir, startRedis } from './bench-processes';
import { benchClient, closeBenchClients } from './bench-redis';
import { comparedBuilds, median, namedTrees, option, runComparison } from './compare-cli';
import { oneNodeEnv, startWorker, stopAll, track } from './connector-processes';
import { drain, openQueue } from './job-load';

// `npm run bench:compare-drain -- <build> <build> [--pairs 8] [--jobs 10000] [--memory-limit <MiB>]`: the
// workers of two built trees (a `dist/` each; Node flags after `@`, as in bench:compare) on one Redis, each
// under its own key prefix, draining the same placeholder jobs in turns: pair after pair, the two taking
// turns at going first. Prints each pair and the median of the paired ratios of jobs/s and of worker CPU
// per job. `--memory-limit` starts each worker in a memory cgroup with that limit (Linux, root).

async function main(): Promise<void> {
  const trees = namedTrees();
  if (trees.length !== 2) throw new Error('name two built trees (dist directories) to compare');
  const pairs = Number(option('pairs', '8'));
  const jobs = Number(option('jobs', '10000'));
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'connector-compare-drain-'));
  setLogDir(logDir);
  const redis = await track(startRedis());
  const client = await benchClient(singleNodeConnection(redis.url), 'compare-drain');
  const sides: Array<{ label: string; queue: Awaited<ReturnType<typeof openQueue>>; pid: number | undefined }> = [];
  const { builds, removeCgroups } = comparedBuilds(trees, 'compare-drain');
  for (const [i, build] of builds.entries()) {
    const worker = await startWorker(oneNodeEnv(redis.url), `worker-${i}`, build);
    const queue = await openQueue(client, JOB_QUEUE_NAME, new RedisKeys(build.keyPrefix).bullPrefix);
    sides.push({ label: build.label, queue, pid: worker.child.pid });
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
  removeCgroups();
  rmSync(logDir, { recursive: true, force: true });
}

runComparison('compare-drain', main);
