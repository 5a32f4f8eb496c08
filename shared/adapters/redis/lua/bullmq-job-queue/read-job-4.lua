--[[
  A job and the part of its state our statuses need, in one atomic read. BullMQ's own state script searches
  the active and waiting lists (O(n) in the backlog: under a backlog of 35,000 jobs it made replays
  Redis-bound); here every check is O(1) or O(log n): finished jobs by their sorted sets, a running job by the
  lock its worker holds. A job in the active list without a lock (its worker died; the stalled check hands it
  back soon) reads as waiting: nobody is running it. Only the fields a record is made of are read, not
  BullMQ's options, stack traces and bookkeeping; a job whose hash has none of the fields every job is stored
  with (name, data, timestamp) is unknown. The field list is set once when the script is loaded (the
  constants below, from bullmq-job-record.ts) rather than sent with every read.

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
