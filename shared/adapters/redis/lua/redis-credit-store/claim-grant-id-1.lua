--[[
  Claims a grant id for one body across every subject: a new id is recorded, the same body passes.
  Input:
    KEYS[1] the grant id's record
    ARGV[1] fingerprint of the body
  Output:
    'new', 'same' or 'conflict'
]]
local known = redis.call('GET', KEYS[1])
if not known then
  redis.call('SET', KEYS[1], ARGV[1])
  return 'new'
end
if known == ARGV[1] then return 'same' end
return 'conflict'
