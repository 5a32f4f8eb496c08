--[[
  Stores the job-id key if absent and reads it back, in one atomic step: two replicas starting together cannot
  each keep their own key, and the key never expires (job ids must stay stable for as long as any record keyed
  by them).

  Input:
    KEYS[1] the job-id key
    ARGV[1] the key this process would use if none is stored yet
  Output:
    the stored key
]]
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
