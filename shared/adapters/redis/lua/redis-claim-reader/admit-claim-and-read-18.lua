--[[
  Admits a bearer request as admit-bearer-6.lua does (admit-connection, no usage reads), then, only for one
  admitted within its quota, claims its paid job and reads the job as claim-and-read-16.lua does, on one node.
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
    KEYS[13] the job hash, on the shard the claim names for a new job
    KEYS[14] that queue's completed set
    KEYS[15] that queue's failed set
    KEYS[16] the job's lock
    KEYS[17] the connection hash
    KEYS[18] the subject's rate-limit window
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
    ARGV[22] subject
    ARGV[23] window length (seconds)
    ARGV[24] now (seconds)
    ARGV[25] last-use resolution (seconds)
    ARGV[26] the subject's quota: requests a window admits
  Output:
    {admission}, the request refused: {'revoked'}, or {'admitted', count, ttl, client id, client name} with a
    count above the quota; else {admission, claim, job}: claim as claim-12.lua answers, job as read-job-4.lua
]]
--- @constant STORED_JOB_FIELDS
--- @constant NAME_AT
--- @constant DATA_AT
--- @constant TIMESTAMP_AT
--- @include "record-use"
--- @include "hit-window"
--- @include "admit-connection"
--- @include "day-history"
--- @include "credit-entry"
--- @include "credit-lots"
--- @include "credit-hold"
--- @include "credit-grant"
--- @include "claim-key"
--- @include "read-job"
local admission = admitConnection(KEYS[17], KEYS[18], ARGV[22], ARGV[23], ARGV[24], ARGV[25])
if admission[1] ~= 'admitted' or admission[2] > tonumber(ARGV[26]) then return {admission} end
local claim = claimKey({
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8], KEYS[9], KEYS[10], KEYS[11], KEYS[12]
}, {
  ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13],
  ARGV[14], ARGV[15], ARGV[16], ARGV[17], ARGV[18], ARGV[19], ARGV[20], ARGV[21]
})
return {admission, claim, readJob(KEYS[13], KEYS[14], KEYS[15], KEYS[16], ARGV[4])}
