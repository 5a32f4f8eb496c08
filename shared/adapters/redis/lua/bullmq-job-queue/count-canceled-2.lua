--[[
  The queue's canceled jobs, for the gauge: BullMQ keeps them in its failed set, so they are counted from our
  own set (members are added by cancel-job-10.lua and the worker's canceled endings). A member older than the
  retention may have been removed by BullMQ's lazy clean-up of finished jobs: it is dropped here once it is no
  longer in the failed set, so the count is that of canceled jobs still kept, in O(old members) per read.

  Input:
    KEYS[1] the queue's canceled set
    KEYS[2] the queue's failed set
    ARGV[1] the oldest score that needs no check (ms)
    ARGV[2] most members checked per read
  Output:
    the number of canceled jobs kept
]]
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))) do
  if not redis.call('ZSCORE', KEYS[2], id) then redis.call('ZREM', KEYS[1], id) end
end
return redis.call('ZCARD', KEYS[1])
