--[[
  Stores an OAuth record, not consumed, replacing any record under the key.
  Input:
    KEYS[1] the record (hash {v: value, c: consumed 0/1})
    ARGV[1] value
    ARGV[2] TTL (seconds), 0 for none
  Output:
    1
]]
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'c', '0')
if tonumber(ARGV[2]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1
