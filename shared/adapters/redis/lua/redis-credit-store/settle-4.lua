--[[
  Ends a job's hold once: a capture of part or all of it, the rest released (includes/credit-settle.lua).
  Input:
    KEYS[1] the subject's credit account (hash: balance, held)
    KEYS[2] the subject's credit entries (sorted set by sequence number)
    KEYS[3] the subject's sequence counter
    KEYS[4] the job's hold record
    ARGV[1] job id
    ARGV[2] credits captured (kept); the rest of the hold is released
    ARGV[3] id of the capture entry
    ARGV[4] id of the release entry
    ARGV[5] when (ISO 8601)
    ARGV[6] how long the settled record is kept (seconds)
  Output:
    {outcome ('settled', 'already' or 'none'), captured, released, balance, held}
]]
--- @include "credit-entry"
--- @include "credit-lots"
--- @include "credit-settle"
local outcome, captured, released = settleCredits(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6])
local account = redis.call('HMGET', KEYS[1], 'balance', 'held')
return {outcome, captured, released, tonumber(account[1] or '0'), tonumber(account[2] or '0')}
