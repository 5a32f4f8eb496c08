--[[
  Claims a paid job: idempotency record, budget, charge, job index, the hold, and first a settled payment's grant.
  Input:
    KEYS[1] the job's idempotency record
    KEYS[2] the subject's usage hash
    KEYS[3] the subject's job index (sorted set by sequence number)
    KEYS[4] the subject's sequence counter
    KEYS[5] the subject's spend that day
    KEYS[6] the subject's spend history (hash, a field per day)
    KEYS[7] the subject's refunds that day
    KEYS[8] the subject's credit account (hash: balance, held)
    KEYS[9] the subject's credit entries (sorted set by sequence number)
    KEYS[10] the job's hold record
    KEYS[11] the subject's spend that day on this operation (its own daily cap; charges only, never refunded)
    KEYS[12] the subject's grants (hash: grant id → "<fingerprint> <entry JSON>"), read only with a grant
    ARGV[1] payload fingerprint
    ARGV[2] record retention (seconds)
    ARGV[3] cost (credits)
    ARGV[4] job id
    ARGV[5] daily limit (credits), -1 for none
    ARGV[6] lifetime of the day's spend key (seconds)
    ARGV[7] shard for a new job
    ARGV[8] the day (YYYY-MM-DD)
    ARGV[9] the oldest day the history keeps (YYYY-MM-DD)
    ARGV[10] lifetime of the history (seconds)
    ARGV[11] accepted at (ms)
    ARGV[12] 1 to hold the cost on the credit account (prepaid billing), 0 not to
    ARGV[13] id of the hold entry
    ARGV[14] CREDITS_LOW_THRESHOLD, -1 for none
    ARGV[15] accepted at (ISO 8601): the hold's acceptance and its entry's time
    ARGV[16] the operation's own daily cap (credits), -1 for none
    ARGV[17] the grant's id, '' for none (then the next four are not read)
    ARGV[18] fingerprint of the grant's body
    ARGV[19] the grant's credits
    ARGV[20] id of the grant's entry (its time: ARGV[15])
    ARGV[21] the grant's note, '' for none
  Output:
    {'created', shard, balance, held, 1 when the hold fell below the threshold} (-1, -1, 0 with no hold), or
    {'insufficient', 0, balance, held}; {'replayed', shard, recorded cost or -1, recorded acceptance (ms) or -1};
    {'conflict', 0} (key used with another payload), {'over_budget', 0} or {'over_operation_budget', 0}
    With a grant (it stands whatever the claim answers): each padded to 5, then credit-grant's 5; or {'grant_conflict', 0}
]]
--- @include "day-history"
--- @include "credit-entry"
--- @include "credit-lots"
--- @include "credit-hold"
--- @include "credit-grant"
--- @include "claim-key"
return claimKey({
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[12]
}, {
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13],
  ARGV[14], ARGV[15], ARGV[16], ARGV[17], ARGV[18], ARGV[19], ARGV[20], ARGV[21]
})
