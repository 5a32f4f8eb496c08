--[[
  Reads a job's record fields and state in O(log n) (docs/decisions/job-scripts-on-bullmq-keys.md).
  Input:
    KEYS[1] the job hash
    KEYS[2] the queue's completed set
    KEYS[3] the queue's failed set
    KEYS[4] the job's lock
    ARGV[1] job id
  Output:
    {'unknown'}
    {state, values}: state 'completed', 'failed', 'active' or 'waiting'; values those of STORED_JOB_FIELDS,
    in its order (null where absent)
]]
--- @constant STORED_JOB_FIELDS
--- @constant NAME_AT
--- @constant DATA_AT
--- @constant TIMESTAMP_AT
local job = redis.call('HMGET', KEYS[1], unpack(STORED_JOB_FIELDS))
if not (job[NAME_AT] or job[DATA_AT] or job[TIMESTAMP_AT]) then return {'unknown'} end
local state = 'waiting'
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then state = 'completed'
elseif redis.call('ZSCORE', KEYS[3], ARGV[1]) then state = 'failed'
elseif redis.call('EXISTS', KEYS[4]) == 1 then state = 'active' end
return {state, job}
