--[[
  A cancel, atomic against a worker taking the job: BullMQ moves a job from its waiting list (or delayed or
  prioritized set) to active in one script too, so either this removes it first, and no worker ever sees it,
  or a worker has it and this only marks the request (the worker polls the mark and fires its signal). A
  removed job goes to the failed set (BullMQ's retention then removes it like any finished job), marked
  canceled; a worker that ends a job canceled sets the same mark, so a job in the failed set without it really
  failed. A job in the active list without a lock is nobody's (its worker died) and reads as queued
  (read-job-4.lua), so it is canceled like one: taken out of the active list here, the stalled check, which
  moves back only a job it removes from that list itself, never hands it back, and a late worker without the
  lock cannot finish it. The job also joins the queue's set of canceled jobs, which the queue gauge counts.
  The job hash's field names are set when the script is loaded (the constants below, from
  bullmq-job-record.ts).

  Input:
    KEYS[1] the job hash
    KEYS[2] the queue's wait list
    KEYS[3] the queue's paused list
    KEYS[4] the queue's delayed set
    KEYS[5] the queue's prioritized set
    KEYS[6] the queue's completed set
    KEYS[7] the queue's failed set
    KEYS[8] the queue's active list
    KEYS[9] the job's lock
    KEYS[10] the queue's canceled set (ours: job id by the time it ended, ms)
    ARGV[1] job id
    ARGV[2] now (ms)
  Output:
    'unknown', 'already_canceled', 'finished', 'canceled' (removed before any worker took it) or 'requested'
    (a worker has it: marked only)
]]
--- @constant CANCEL_REQUESTED_FIELD
--- @constant CANCELED_FIELD
if redis.call('EXISTS', KEYS[1]) == 0 then return 'unknown' end
if redis.call('HEXISTS', KEYS[1], CANCELED_FIELD) == 1 then return 'already_canceled' end
if redis.call('ZSCORE', KEYS[6], ARGV[1]) or redis.call('ZSCORE', KEYS[7], ARGV[1]) then return 'finished' end
local removed = redis.call('LREM', KEYS[2], 0, ARGV[1]) + redis.call('LREM', KEYS[3], 0, ARGV[1])
  + redis.call('ZREM', KEYS[4], ARGV[1]) + redis.call('ZREM', KEYS[5], ARGV[1])
if removed == 0 and redis.call('EXISTS', KEYS[9]) == 0 then removed = redis.call('LREM', KEYS[8], 0, ARGV[1]) end
if removed > 0 then
  redis.call('HSET', KEYS[1], CANCEL_REQUESTED_FIELD, ARGV[2], CANCELED_FIELD, ARGV[2], 'finishedOn', ARGV[2])
  redis.call('ZADD', KEYS[7], ARGV[2], ARGV[1])
  redis.call('ZADD', KEYS[10], ARGV[2], ARGV[1])
  return 'canceled'
end
redis.call('HSETNX', KEYS[1], CANCEL_REQUESTED_FIELD, ARGV[2])
return 'requested'
