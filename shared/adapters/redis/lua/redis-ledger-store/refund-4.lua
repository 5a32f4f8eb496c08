--[[
  Refunds a job's charge once: the usage, the day's refunds and the refund history change with the record.
  Input:
    KEYS[1] the job's refund record
    KEYS[2] the subject's usage hash
    KEYS[3] the subject's refunds that day
    KEYS[4] the subject's refund history (hash, a field per day)
    ARGV[1] credits refunded
    ARGV[2] record lifetime (seconds)
    ARGV[3] the day (YYYY-MM-DD)
    ARGV[4] lifetime of the day's refunds key (seconds)
    ARGV[5] the oldest day the history keeps (YYYY-MM-DD)
    ARGV[6] lifetime of the history (seconds)
    ARGV[7] the charge refunded (its job's created_at): a job made again under the same id is a new charge
  Output:
    1 refunded now, 0 already refunded
]]
--- @include "day-history"
if redis.call('GET', KEYS[1]) == ARGV[7] then return 0 end
redis.call('SET', KEYS[1], ARGV[7], 'EX', ARGV[2])
local credits = tonumber(ARGV[1])
redis.call('HINCRBY', KEYS[2], 'credits_refunded', credits)
local refunded = redis.call('INCRBY', KEYS[3], credits)
redis.call('EXPIRE', KEYS[3], ARGV[4])
keepDayTotal(KEYS[4], ARGV[3], refunded, ARGV[5], ARGV[6])
return 1
