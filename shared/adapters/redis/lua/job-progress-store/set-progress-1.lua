--[[
  Sets a job hash's progress field only while the job exists, with no entry in the queue's event stream.
  Input:
    KEYS[1] the job hash
    ARGV[1] the progress field's JSON
  Output:
    1 written, 0 the job is gone
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
return 1
