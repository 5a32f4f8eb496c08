--[[
  consume-1.lua, only when the record's JSON holds each given field's value; a mismatch changes nothing.
  Input:
    KEYS[1] the record (hash {v: value, c: consumed 0/1})
    ARGV[1...] field name, expected value, field name, expected value, ... (pairs; none: consume-1.lua)
  Output:
    {value, consumed before: '0' or '1'}
    0: a field does not match, or the value is no JSON object
    nil: no such record
]]
local fields = redis.call('HMGET', KEYS[1], 'v', 'c')
if not fields[1] then return nil end
local ok, record = pcall(cjson.decode, fields[1])
if not ok or type(record) ~= 'table' then return 0 end
for i = 1, #ARGV, 2 do
  if record[ARGV[i]] ~= ARGV[i + 1] then return 0 end
end
redis.call('HSET', KEYS[1], 'c', '1')
return {fields[1], fields[2]}
