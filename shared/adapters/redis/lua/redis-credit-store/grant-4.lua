--[[
  Grants or adjusts a subject's credits once per grant id, recording the grant, its entry and its lot: includes/credit-grant.lua.
  Input:
    KEYS[1] the subject's credit account (hash: balance, held)
    KEYS[2] the subject's credit entries (sorted set by sequence number)
    KEYS[3] the subject's sequence counter
    KEYS[4] the subject's grants (hash: grant id → "<fingerprint> <entry JSON>")
    ARGV[1] grant id
    ARGV[2] fingerprint of the body
    ARGV[3] credits (negative: an adjustment)
    ARGV[4] id of the entry
    ARGV[5] when (ISO 8601)
    ARGV[6] note, '' for none
    ARGV[7] CREDITS_LOW_THRESHOLD, -1 for none
    ARGV[8] a positive grant's expiry (ISO 8601), '' for none
    ARGV[9] the same expiry (ms), -1 for none
  Output:
    {'created', entry JSON, balance, held, 1 when the balance fell below the threshold (else 0)}
    {'replayed', entry JSON of the earlier grant, balance, held}
    {'conflict'}
]]
--- @include "credit-entry"
--- @include "credit-lots"
--- @include "credit-grant"
local grant = {gid = ARGV[1], fingerprint = ARGV[2], credits = ARGV[3], entryId = ARGV[4], at = ARGV[5], note = ARGV[6], threshold = ARGV[7], expiresAt = ARGV[8], expiresMs = ARGV[9]}
local outcome, entry, balance, held, fell = grantCredits(KEYS[1], KEYS[2], KEYS[3], KEYS[4], grant)
if outcome == 'conflict' then return {'conflict'} end
if outcome == 'replayed' then return {'replayed', entry, balance, held} end
return {'created', entry, balance, held, fell}
