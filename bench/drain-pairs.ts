import type { Queue } from 'bullmq';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import { round } from './bench-processes';
import { type DrainFigure, drain } from './job-load';

/** One side of (g): a worker that is running, its queue, the job name it processes, its process id. */
export interface DrainSide {
  queue: Queue;
  jobName: string;
  workerPid?: number;
}

/** (g): the median pair's figures, its ratio, and every pair's ratio in the order they ran. */
export interface PairedDrains {
  connector: DrainFigure;
  bare: DrainFigure;
  ofBare: number;
  pairs: number[];
}

/**
 * Drains `jobs` jobs through each of two running workers, `pairs` times, the two taking turns at going first;
 * returns each pair's figures in the order of `sides`. Each worker first drains as many jobs unmeasured:
 * after a tenth as many, workers still spent about 15 µs a job on compiler and GC threads, which made the
 * first measured drain a start-up figure rather than a steady one.
 *
 * Why pairs: a drain of 10,000 jobs lasts 0.6 to 1.5 s, so one drain of each worker compares two moments of
 * a shared machine as much as two workers (the same build gave 0.73 and 1.15 that way). The two drains of a
 * pair run back to back, and alternating the order cancels a steady drift.
 */
export async function drainPairs(
  client: RedisClient,
  sides: readonly [DrainSide, DrainSide],
  options: { jobs: number; pairs: number; redisPid?: number; onPair?: (figures: [DrainFigure, DrainFigure], pair: number) => void },
): Promise<Array<[DrainFigure, DrainFigure]>> {
  const { jobs, pairs, redisPid } = options;
  const run = (side: DrainSide, measured: boolean) =>
    drain({ client, queues: [side.queue] }, jobs, side.jobName, measured ? { workerPid: side.workerPid, redisPid } : {});
  for (const side of sides) await run(side, false);
  const measured: Array<[DrainFigure, DrainFigure]> = [];
  for (let pair = 0; pair < pairs; pair += 1) {
    const figures: DrainFigure[] = [];
    for (const i of pair % 2 === 0 ? [0, 1] : [1, 0]) figures[i] = await run(sides[i], true);
    measured.push([figures[0], figures[1]]);
    options.onPair?.([figures[0], figures[1]], pair);
    // Completed jobs are kept for a day (as the connector keeps them): empty both queues so that a run of
    // many pairs does not fill Redis, and every drain starts from the same empty queue.
    await Promise.all(sides.map((side) => side.queue.obliterate({ force: true })));
  }
  return measured;
}

/**
 * (g): {@link drainPairs} of the connector's worker and the bare one, keeping the pair with the median ratio
 * (which drops the pairs a burst of other work fell into).
 */
export async function pairedDrains(
  client: RedisClient,
  sides: { connector: DrainSide; bare: DrainSide },
  options: { jobs: number; pairs: number; redisPid?: number },
): Promise<PairedDrains> {
  const measured = await drainPairs(client, [sides.connector, sides.bare], options);
  return medianPair(measured.map(([connector, bare]) => ({ connector, bare, ratio: connector.jobsPerSecond / bare.jobsPerSecond })));
}

/** The pair whose ratio is the median (the upper one of an even count), with every ratio in run order. */
export function medianPair(measured: ReadonlyArray<{ connector: DrainFigure; bare: DrainFigure; ratio: number }>): PairedDrains {
  if (measured.length === 0) throw new Error('no drain pairs were measured');
  const median = [...measured].sort((x, y) => x.ratio - y.ratio)[Math.floor(measured.length / 2)];
  return {
    connector: median.connector,
    bare: median.bare,
    ofBare: round(median.ratio, 2),
    pairs: measured.map((pair) => round(pair.ratio, 3)),
  };
}
