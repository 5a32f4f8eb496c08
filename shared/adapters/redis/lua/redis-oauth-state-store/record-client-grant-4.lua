--[[
  Records a grant for a live client registration (the keys are register-client-4.lua's).
  Input:
    KEYS[1] the client's record (hash {v: value, c: consumed 0/1})
    KEYS[2] `oauth:client:index`: every registration, scored by its record's expiry (ms)
    KEYS[3] `oauth:client:unused`: registrations never granted
    KEYS[4] `oauth:client:granted`: registrations granted, scored by the end of their last grant (ms)
    ARGV[1] value
    ARGV[2] the grant's end (ms)
    ARGV[3] how long a record is kept after its last grant ends (seconds)
    ARGV[4] now (ms)
  Output:
    1 recorded, 0 the record is gone
]]
local score = redis.call('ZSCORE', KEYS[2], KEYS[1])
if not score or redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local ends = tonumber(ARGV[2])
local previous = redis.call('ZSCORE', KEYS[4], KEYS[1])
if previous and tonumber(previous) > ends then ends = tonumber(previous) end
local expiry = math.max(tonumber(score), ends + tonumber(ARGV[3]) * 1000)
redis.call('HSET', KEYS[1], 'v', ARGV[1])
redis.call('PEXPIRE', KEYS[1], math.max(1, math.floor(expiry - tonumber(ARGV[4]))))
redis.call('ZADD', KEYS[2], expiry, KEYS[1])
redis.call('ZREM', KEYS[3], KEYS[1])
redis.call('ZADD', KEYS[4], ends, KEYS[1])
return 1
