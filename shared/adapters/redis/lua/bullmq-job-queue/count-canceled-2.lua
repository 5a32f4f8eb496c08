--[[
  Counts the queue's canceled jobs still kept, dropping members BullMQ has removed from its failed set.
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
