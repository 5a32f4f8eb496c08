import { CANCEL_REQUESTED_FIELD, CANCELED_FIELD } from './bullmq-job-record';

/**
 * A cancel, atomic against a worker taking the job: BullMQ moves a job from its waiting list (or delayed or
 * prioritized set) to active in one script too, so either this removes it first, and no worker ever sees it,
 * or a worker has it and this only marks the request (the worker polls the mark and fires its signal). A
 * removed job goes to the failed set (BullMQ's retention then removes it like any finished job), marked canceled;
 * a worker that ends a job canceled sets the same mark, so a job in the failed set without it really failed.
 * A job in the active list without a lock is nobody's (its worker died) and reads as queued (READ_JOB), so it
 * is canceled like one: taken out of the active list here, the stalled check, which moves back only a job it
 * removes from that list itself, never hands it back, and a late worker without the lock cannot finish it.
 * The job also joins the queue's set of canceled jobs (CANCELED_SET), which the queue gauge counts.
 * KEYS: job hash, wait, paused, delayed, prioritized, completed, failed, active, job lock, canceled.
 * ARGV: job id, now (ms).
 */
export const CANCEL_JOB = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
if redis.call('HEXISTS', KEYS[1], '${CANCELED_FIELD}') == 1 then return 'already_canceled' end
if redis.call('ZSCORE', KEYS[6], ARGV[1]) or redis.call('ZSCORE', KEYS[7], ARGV[1]) then return 'finished' end
local removed = redis.call('LREM', KEYS[2], 0, ARGV[1]) + redis.call('LREM', KEYS[3], 0, ARGV[1])
  + redis.call('ZREM', KEYS[4], ARGV[1]) + redis.call('ZREM', KEYS[5], ARGV[1])
if removed == 0 and redis.call('EXISTS', KEYS[9]) == 0 then removed = redis.call('LREM', KEYS[8], 0, ARGV[1]) end
if removed > 0 then
  redis.call('HSET', KEYS[1], '${CANCEL_REQUESTED_FIELD}', ARGV[2], '${CANCELED_FIELD}', ARGV[2], 'finishedOn', ARGV[2])
  redis.call('ZADD', KEYS[7], ARGV[2], ARGV[1])
  redis.call('ZADD', KEYS[10], ARGV[2], ARGV[1])
  return 'canceled'
end
redis.call('HSETNX', KEYS[1], '${CANCEL_REQUESTED_FIELD}', ARGV[2])
return 'requested'
`;

/**
 * The queue's canceled jobs, for the gauge: BullMQ keeps them in its failed set, so they are counted from our
 * own set (members are added by the cancel script and the worker's canceled endings). A member older than the
 * retention may have been removed by BullMQ's lazy clean-up of finished jobs: it is dropped here once it is no
 * longer in the failed set, so the count is that of canceled jobs still kept, in O(old members) per read.
 * KEYS: canceled set, failed set. ARGV: oldest score that needs no check (ms), most members checked per read.
 */
export const COUNT_CANCELED = `
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))) do
  if not redis.call('ZSCORE', KEYS[2], id) then redis.call('ZREM', KEYS[1], id) end
end
return redis.call('ZCARD', KEYS[1])
`;
