import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';

/** Writes a BullMQ job's `progress` field (our `BullJobProgress`) by its hash key; false when the job is gone. */
export type JobProgressStore = (jobKey: string, progress: object) => Promise<boolean>;

/**
 * The progress writer bound to a client: a late write never recreates a removed job, and unlike BullMQ's own
 * update it adds nothing to the queue's event stream, which nothing here reads.
 */
export function jobProgressStore(client: RedisClient): JobProgressStore {
  const setProgress: LuaScript<number> = defineLuaScript(client, 'job-progress-store/set-progress');
  return async (jobKey, progress) => (await setProgress([jobKey], [JSON.stringify(progress)])) === 1;
}
