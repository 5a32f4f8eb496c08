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
local conn = redis.call('HMGET', KEYS[1], 'subject', 'revoked', 'client_id', 'client_name', 'last_used_at')
if conn[1] ~= ARGV[1] or conn[2] ~= '0' then return {'revoked'} end
recordUse(KEYS[1], conn[5], ARGV[4], ARGV[5])
local count, ttl = hitWindow(KEYS[2], ARGV[2])
if ARGV[3] == '1' then
  local usage = redis.call('HMGET', KEYS[3], 'jobs_charged', 'credits_spent', 'credits_refunded')
  local credits = redis.call('HMGET', KEYS[6], 'balance', 'held')
  return {
    'admitted', count, ttl, conn[3], conn[4], usage[1], usage[2], redis.call('GET', KEYS[4]), usage[3], redis.call('GET', KEYS[5]),
    credits[1], credits[2]
  }
end
return {'admitted', count, ttl, conn[3], conn[4]}
