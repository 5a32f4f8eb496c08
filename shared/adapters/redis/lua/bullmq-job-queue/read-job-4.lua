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
--- @include "read-job"
return readJob(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1])
