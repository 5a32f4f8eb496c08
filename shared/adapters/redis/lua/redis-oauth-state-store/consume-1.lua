--[[
  Marks an OAuth record consumed and says whether it already was, so a code has one first use.
  Input:
    KEYS[1] the record (hash {v: value, c: consumed 0/1})
  Output:
    {value, consumed before: '0' or '1'}
    nil: no such record
]]
local fields = redis.call('HMGET', KEYS[1], 'v', 'c')
if not fields[1] then return nil end
redis.call('HSET', KEYS[1], 'c', '1')
return {fields[1], fields[2]}
