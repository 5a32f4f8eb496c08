import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import { JOB_QUEUE_NAME, RedisKeys } from '../shared/adapters/redis/redis-keys';
import { singleNodeConnection } from '../shared/platform/config/redis-settings';
import { setLogDir } from '../test/testkit/node-process';
import { thisNode } from './bench-node';
import { round, startRedis } from './bench-processes';
import { benchClient, closeBenchClients } from './bench-redis';
import { comparedBuilds, median, namedTrees, option, runComparison } from './compare-cli';
import { oneNodeEnv, startBareWorker, startWorker, stopAll, track } from './connector-processes';
import { type DrainSide, drainPairs } from './drain-pairs';
import { openQueue } from './job-load';

// `npm run bench:compare-drain -- <build> <build> [--pairs 8] [--jobs 10000] [--memory-limit <MiB>]`: the
// workers of two built trees (a `dist/` each; Node flags or `env:NAME=value` after `@`, as in bench:compare) on one Redis, each
// under its own key prefix, draining the same placeholder jobs in turns: pair after pair, the two taking
// turns at going first. Prints each pair and the median of the paired ratios of jobs/s and of worker CPU
// per job. `--memory-limit` starts each worker in a memory cgroup with that limit (Linux, root). With one build
// and `--bare`, the other side is the bare BullMQ worker of the full run's (g).

async function main(): Promise<void> {
  const trees = namedTrees();
  const againstBare = process.argv.includes('--bare');
  if (trees.length !== (againstBare ? 1 : 2)) throw new Error('name two built trees (dist directories) to compare, or one and --bare');
  const pairs = Number(option('pairs', '8'));
  const jobs = Number(option('jobs', '10000'));
  const logDir = mkdtempSync(path.join(os.tmpdir(), 'connector-compare-drain-'));
  // Every build runs on this one Node (`on-node.ts`): the image's unless --machine-node or BENCH_NODE says otherwise.
  process.stdout.write(`every build on ${thisNode()}\n`);
  setLogDir(logDir);
  const redis = await track(startRedis());
  const client = await benchClient(singleNodeConnection(redis.url), 'compare-drain');
  const { builds, removeCgroups } = comparedBuilds(trees, 'compare-drain');
  const sides: Array<DrainSide & { label: string }> = [];
  for (const [i, build] of builds.entries()) {
    const worker = await startWorker(oneNodeEnv(redis.url), `worker-${i}`, build);
    const queue = await openQueue(client, JOB_QUEUE_NAME, new RedisKeys(build.keyPrefix).bullPrefix);
    sides.push({ label: build.label, queue, jobName: 'createJob', workerPid: worker.child.pid });
  }
  // Bare first, so that the ratios printed (the second side over the first) are the connector's of bare, as (g)'s.
  if (againstBare) sides.unshift(await bareSide(client, redis.url));
  const measured = await drainPairs(client, [sides[0], sides[1]], {
    jobs,
    pairs,
    redisPid: redis.pid,
    onPair: (figures, pair) =>
      process.stdout.write(
        `pair ${pair + 1}: ${figures.map((f, i) => `${sides[i].label} ${f.jobsPerSecond} jobs/s, ${f.workerCpuUsPerJob ?? 'n/a'} µs CPU/job`).join('; ')}\n`,
      ),
  });
  const speed = measured.map(([first, second]) => second.jobsPerSecond / first.jobsPerSecond);
  const cpu = measured.flatMap(([first, second]) =>
    first.workerCpuUsPerJob && second.workerCpuUsPerJob ? [second.workerCpuUsPerJob / first.workerCpuUsPerJob] : [],
  );
  process.stdout.write(
    `\n${sides[1].label} against ${sides[0].label} on ${thisNode()}, median of ${pairs} pairs: jobs/s ×${round(median(speed), 3)} (ratios ${speed.map((r) => round(r, 2)).join(', ')})`,
  );
  process.stdout.write(cpu.length > 0 ? `, worker CPU per job ×${round(median(cpu), 3)}\n` : '\n');
  for (const side of sides) await side.queue.close();
  await closeBenchClients();
  await stopAll();
  removeCgroups();
  rmSync(logDir, { recursive: true, force: true });
}

/**
 * `--bare`: the second side is the bare BullMQ worker of the full run's (g) (`bare-worker.ts`, the same
 * concurrency), so the ratios are (g)'s, from as many pairs as asked.
 */
async function bareSide(client: RedisClient, redisUrl: string): Promise<DrainSide & { label: string }> {
  const queue = await openQueue(client, 'bare', 'bench-bare');
  const worker = await startBareWorker(oneNodeEnv(redisUrl));
  return { label: 'bare BullMQ', queue, jobName: 'noop', workerPid: worker.child.pid };
}

runComparison('compare-drain', main);
