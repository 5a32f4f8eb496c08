--[[
  Sets a BullMQ job hash's progress field only while the job exists, so a late write never recreates a removed
  job as a hash of one field. Unlike BullMQ's own progress update it adds no entry to the queue's event stream,
  which nothing here reads: a report is one round trip and one field, nothing more.

  Input:
    KEYS[1] the job hash
    ARGV[1] the progress field's JSON
  Output:
    1 written, 0 the job is gone
]]
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'progress', ARGV[1])
return 1
