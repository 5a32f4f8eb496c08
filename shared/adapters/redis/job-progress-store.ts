import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';

// Sets the job hash's progress field only while the job exists, so a late write never recreates a removed
// job as a hash of one field. Unlike BullMQ's own progress update it adds no entry to the queue's event
// stream, which nothing here reads: a report is one round trip and one field, nothing more.
// KEYS: job hash. ARGV: the progress field's JSON.
const SET_PROGRESS = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
return 1
`;

/** Writes a BullMQ job's `progress` field (our `BullJobProgress`) by its hash key; false when the job is gone. */
export type JobProgressStore = (jobKey: string, progress: object) => Promise<boolean>;

/** The progress writer bound to a client. */
export function jobProgressStore(client: RedisClient): JobProgressStore {
  const setProgress: LuaScript<number> = defineLuaScript(client, 'set_job_progress', 1, SET_PROGRESS);
  return async (jobKey, progress) => (await setProgress([jobKey], [JSON.stringify(progress)])) === 1;
}
