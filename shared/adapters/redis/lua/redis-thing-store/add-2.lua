--[[
  Numbers a thing and indexes it in one step: no two things share a number, none is seen without its thing.
  Input:
    KEYS[1] the subject's things (sorted set: score sequence number, member the thing's JSON)
    KEYS[2] the subject's sequence counter
    ARGV[1] the thing's JSON
  Output:
    the thing's sequence number
]]
local seq = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[1], seq, ARGV[1])
return seq
