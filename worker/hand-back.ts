import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { BullJobOf } from './bullmq-attempt';

/** A job this worker holds the lock of; `handedBack` is set when a shutdown hands it back (true once it went back). */
export interface RunningJob {
  job: BullJobOf;
  token: string;
  handedBack?: Promise<boolean>;
}

/**
 * Moves each job back to waiting under its lock token; resolves with the ids that went back. Each job's
 * `handedBack` is set before its move is sent, so that an attempt ending meanwhile waits for the move's outcome.
 */
export async function handBack(jobs: RunningJob[], logger: Logger): Promise<string[]> {
  const results = await Promise.all(
    jobs.map(
      (entry) =>
        (entry.handedBack = Promise.race([entry.job.moveToWait(entry.token).then(() => true), delay(1000).then(() => false)]).catch(
          (error: unknown) => {
            logger.warn({ err: error, job_id: entry.job.id }, 'could not hand the job back; its lock will expire instead');
            return false;
          },
        )),
    ),
  );
  return jobs.filter((_, i) => results[i]).map(({ job }) => job.id!);
}
