import type { Logger } from 'pino';
import { withinGrace } from '../shared/platform/lifecycle/within-grace';
import type { RunningJob } from './running-job';

/** How long one job's move back to waiting may take before its lock is left to expire instead. */
const HAND_BACK_WAIT_MS = 1000;

/**
 * Moves each job back to waiting under its lock token; resolves with the ids that went back. Each job's
 * `handedBack` is set before its move is sent, so that an attempt ending meanwhile waits for the move's outcome.
 */
export async function handBack(jobs: RunningJob[], logger: Logger): Promise<string[]> {
  const results = await Promise.all(
    jobs.map(
      (entry) =>
        (entry.handedBack = withinGrace(entry.job.moveToWait(entry.token), HAND_BACK_WAIT_MS).catch((error: unknown) => {
          logger.warn({ err: error, job_id: entry.job.id }, 'could not hand the job back; its lock will expire instead');
          return false;
        })),
    ),
  );
  return jobs.filter((_, i) => results[i]).map(({ job }) => job.id!);
}
