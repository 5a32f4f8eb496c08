--[[
  Admits a bearer request in one round trip: revocation, use record, rate-limit hit (and the reads of /v1/me).
  Input:
    KEYS[1] the connection hash
    KEYS[2] the subject's rate-limit window
    KEYS[3] the subject's usage hash
    KEYS[4] the subject's spend that day
    KEYS[5] the subject's refunds that day
    KEYS[6] the subject's credit account (hash: balance, held)
    ARGV[1] subject
    ARGV[2] window length (seconds)
    ARGV[3] '1' to read the usage, '0' not to
    ARGV[4] now (seconds)
    ARGV[5] last-use resolution (seconds)
  Output:
    {'revoked'}
    {'admitted', count, ttl, client id, client name}, and when ARGV[3] is '1' then jobs charged, credits
    charged, the day's spend, credits refunded, the day's refunds, the credit balance and held credits (each
    null when absent)
]]
--- @include "record-use"
--- @include "hit-window"
--- @include "admit-connection"
local admission = admitConnection(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[4], ARGV[5])
if admission[1] ~= 'admitted' or ARGV[3] ~= '1' then return admission end
local usage = redis.call('HMGET', KEYS[3], 'jobs_charged', 'credits_spent', 'credits_refunded')
local credits = redis.call('HMGET', KEYS[6], 'balance', 'held')
return {
  admission[1], admission[2], admission[3], admission[4], admission[5], usage[1], usage[2], redis.call('GET', KEYS[4]), usage[3],
  redis.call('GET', KEYS[5]), credits[1], credits[2]
}
