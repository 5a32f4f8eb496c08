--[[
  Stores the job-id key if absent, with no expiry, and reads it back: replicas starting together keep one key.
  Input:
    KEYS[1] the job-id key
    ARGV[1] the key this process would use if none is stored yet
  Output:
    the stored key
]]
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
