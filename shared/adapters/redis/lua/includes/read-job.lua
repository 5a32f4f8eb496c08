--[[
  readJob(jobKey, completed, failed, lock, id): a job's fields and state in O(log n) from its hash, its queue's
  completed and failed sets and its lock; needs the constants of read-job-4.lua.
  Output:
    {'unknown'}, or {state, values}: state 'completed', 'failed', 'active' or 'waiting'; values those of
    STORED_JOB_FIELDS, in its order (null where absent)
]]
local function readJob(jobKey, completed, failed, lock, id)
  local job = redis.call('HMGET', jobKey, unpack(STORED_JOB_FIELDS))
  if not (job[NAME_AT] or job[DATA_AT] or job[TIMESTAMP_AT]) then return {'unknown'} end
  local state = 'waiting'
  if redis.call('ZSCORE', completed, id) then state = 'completed'
  elseif redis.call('ZSCORE', failed, id) then state = 'failed'
  elseif redis.call('EXISTS', lock) == 1 then state = 'active' end
  return {state, job}
end
