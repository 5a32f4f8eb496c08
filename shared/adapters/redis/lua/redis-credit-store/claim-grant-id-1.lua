--[[
  Claims a grant id for one body (its fingerprint, which covers the subject), across every subject: the first
  claim records it, a repeat with the same body passes, another body (another subject's included) is refused.
  One key, so on a cluster it has a slot of its own; the grant itself (grant-4.lua, in the subject's slot)
  follows, and is idempotent by the same id, so a process that dies between the two is repaired by the
  dashboard's retry. The record has no expiry: a checkout's id must never be credited twice.

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
