--[[
  Drops a job from the subject's index only while its idempotency record is absent.
  Input:
    KEYS[1] the subject's job index
    KEYS[2] the job's idempotency record
    ARGV[1] job id
  Output:
    0
]]
if redis.call('EXISTS', KEYS[2]) == 0 then redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
