--[[
  Holds a paid job's price on its own (the ledger's claim holds inside its step): includes/credit-hold.lua.
  Input:
    KEYS[1] the subject's credit account (hash: balance, held)
    KEYS[2] the subject's credit entries (sorted set by sequence number)
    KEYS[3] the subject's sequence counter
    KEYS[4] the job's hold record
    ARGV[1] job id
    ARGV[2] price (credits)
    ARGV[3] id of the hold entry
    ARGV[4] the job's acceptance (ISO 8601): the entry's time
    ARGV[5] CREDITS_LOW_THRESHOLD, -1 for none
  Output:
    {outcome ('held', 'exists' or 'insufficient'), balance, held, 1 when the balance fell below the threshold}
]]
--- @include "credit-entry"
--- @include "credit-lots"
--- @include "credit-hold"
local outcome, balance, held, fell = holdCredits(KEYS[1], KEYS[2], KEYS[3], KEYS[4], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5])
return {outcome, balance, held, fell}
