--[[
  Cancels a job: removed unless a worker has it, else marked (docs/decisions/job-scripts-on-bullmq-keys.md).
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
