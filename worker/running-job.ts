import type { Job as BullJob } from 'bullmq';
import type { BullJobData } from '../shared/adapters/redis/bullmq-job-record';

/** A job of the paid-jobs queues as the worker receives it: its name is the operation id. */
export type BullJobOf = BullJob<BullJobData, Record<string, unknown>, string>;

/** A job this worker holds the lock of; `handedBack` is set when a shutdown hands it back (true once it went back). */
export interface RunningJob {
  job: BullJobOf;
  token: string;
  handedBack?: Promise<boolean>;
}
