import type { Queue } from 'bullmq';
import type { RedisClient } from '../shared/redis/redis-client';
import { round } from './bench-processes';
import { drain, type DrainFigure } from './job-load';

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
 * Drains `jobs` jobs through the connector's worker and as many through the bare one, `pairs` times, the
 * two taking turns at going first, and keeps the median pair by its ratio. Both workers stay up throughout
 * and each first drains as many jobs unmeasured: after a tenth as many, both still spent about 15 µs a job
 * on compiler and GC threads, which made the first measured drain a start-up figure rather than a steady one.
 *
 * Why pairs: a drain of 10,000 jobs lasts 0.6 to 1.5 s, so one drain of each worker compares two moments of
 * a shared machine as much as two workers (the same build gave 0.73 and 1.15 that way). The two drains of a
 * pair run back to back, alternating the order cancels a steady drift, and the median drops the pairs a
 * burst of other work fell into.
 */
export async function pairedDrains(
  client: RedisClient,
  sides: { connector: DrainSide; bare: DrainSide },
  options: { jobs: number; pairs: number; redisPid?: number },
): Promise<PairedDrains> {
  const { jobs, pairs, redisPid } = options;
  const run = (side: DrainSide, measured: boolean) =>
    drain({ client, queues: [side.queue] }, jobs, side.jobName, measured ? { workerPid: side.workerPid, redisPid } : {});
  await run(sides.connector, false);
  await run(sides.bare, false);
  const measured: Array<{ connector: DrainFigure; bare: DrainFigure; ratio: number }> = [];
  for (let pair = 0; pair < pairs; pair += 1) {
    let connector: DrainFigure;
    let bare: DrainFigure;
    if (pair % 2 === 0) {
      connector = await run(sides.connector, true);
      bare = await run(sides.bare, true);
    } else {
      bare = await run(sides.bare, true);
      connector = await run(sides.connector, true);
    }
    measured.push({ connector, bare, ratio: connector.jobsPerSecond / bare.jobsPerSecond });
    // Completed jobs are kept for a day (as the connector keeps them): empty both queues so that a run of
    // many pairs does not fill Redis, and every drain starts from the same empty queue.
    await Promise.all([sides.connector.queue.obliterate({ force: true }), sides.bare.queue.obliterate({ force: true })]);
  }
  return medianPair(measured);
}

/** The pair whose ratio is the median (the upper one of an even count), with every ratio in run order. */
export function medianPair(measured: ReadonlyArray<{ connector: DrainFigure; bare: DrainFigure; ratio: number }>): PairedDrains {
  if (measured.length === 0) throw new Error('no drain pairs were measured');
  const median = [...measured].sort((x, y) => x.ratio - y.ratio)[Math.floor(measured.length / 2)];
  return { connector: median.connector, bare: median.bare, ofBare: round(median.ratio, 2), pairs: measured.map((pair) => round(pair.ratio, 3)) };
}
