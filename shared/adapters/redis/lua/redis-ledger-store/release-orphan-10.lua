--[[
  Releases, once, the open hold of an acceptance whose job was never enqueued (reason `orphaned`), drops its
  record and refunds its usage, in the subject's slot; nothing if a retry changed the repair mark the sweep read.
  Input:
    KEYS[1] the job's idempotency record
    KEYS[2] the subject's credit account (hash: balance, held)
    KEYS[3] the subject's credit entries (sorted set by sequence number)
    KEYS[4] the subject's sequence counter
    KEYS[5] the job's hold record
    KEYS[6] the job's refund record
    KEYS[7] the subject's usage hash
    KEYS[8] the subject's refunds on the day of the charge
    KEYS[9] the subject's refund history (hash, a field per day)
    KEYS[10] the hold's repair mark
    ARGV[1] job id
    ARGV[2] the hold's acceptance (ISO 8601)
    ARGV[3] the hold's acceptance (ms), as the idempotency record holds it
    ARGV[4] id of the release entry
    ARGV[5] when (ISO 8601)
    ARGV[6] how long the settled hold record and the refund record are kept (seconds)
    ARGV[7] the day of the charge (YYYY-MM-DD)
    ARGV[8] lifetime of the day's refunds key (seconds)
    ARGV[9] the oldest day the history keeps (YYYY-MM-DD)
    ARGV[10] lifetime of the history (seconds)
    ARGV[11] the repair mark the sweep read ('' for none)
  Output:
    the credits released (0 when nothing was open for this acceptance); -1 when the mark is not ARGV[11] any
    more (nothing written)
]]
--- @include "day-history"
--- @include "credit-entry"
--- @include "credit-lots"
--- @include "credit-settle"
if (redis.call('GET', KEYS[10]) or '') ~= ARGV[11] then return -1 end
local record = redis.call('GET', KEYS[5])
if not record then return 0 end
local state, heldAt = string.match(record, '^(%a+)|%d+|%d+|([^|]*)')
if state ~= 'held' or heldAt ~= ARGV[2] then return 0 end
local _, _, released = settleCredits(KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[1], 0, '', ARGV[4], ARGV[5], ARGV[6], 'orphaned')
redis.call('DEL', KEYS[10])
local claim = redis.call('GET', KEYS[1])
if claim and string.match(claim, ':(%d*)$') == ARGV[3] then redis.call('DEL', KEYS[1]) end
if released > 0 and redis.call('GET', KEYS[6]) ~= ARGV[2] then
  redis.call('SET', KEYS[6], ARGV[2], 'EX', ARGV[6])
  redis.call('HINCRBY', KEYS[7], 'credits_refunded', released)
  local refunded = redis.call('INCRBY', KEYS[8], released)
  redis.call('EXPIRE', KEYS[8], ARGV[8])
  keepDayTotal(KEYS[9], ARGV[7], refunded, ARGV[9], ARGV[10])
end
return released
