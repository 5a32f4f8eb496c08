--[[
  claimKey(keys, argv): claim-12.lua's claim, `keys` and `argv` its keys and arguments in its order; needs
  day-history, credit-entry, credit-lots, credit-hold, credit-grant.
  Output:
    the claim's answer, as claim-12.lua's Output says
]]
local function claimKey(keys, argv)
  local granted = {}
  if argv[17] ~= '' then
    local grant = {gid = argv[17], fingerprint = argv[18], credits = argv[19], entryId = argv[20], at = argv[15], note = argv[21], threshold = argv[14], expiresAt = '', expiresMs = -1}
    local outcome, entry, balance, held, fell = grantCredits(keys[8], keys[9], keys[4], keys[12], grant)
    if outcome == 'conflict' then return {'grant_conflict', 0} end
    granted = {outcome, entry, balance, held, fell}
  end
  -- The claim's answer, followed by the grant's when there is one.
  local function answer(reply)
    if #granted == 0 then return reply end
    for i = #reply + 1, 5 do reply[i] = -1 end
    for _, part in ipairs(granted) do reply[#reply + 1] = part end
    return reply
  end
  local existing = redis.call('GET', keys[1])
  if existing then
    local fingerprint, shard, cost, at = string.match(existing, '^([^:]*):?(%d*):?(%d*):?(%d*)$')
    if fingerprint == argv[1] then return answer({'replayed', tonumber(shard) or 0, tonumber(cost) or -1, tonumber(at) or -1}) end
    return answer({'conflict', 0})
  end
  local cost = tonumber(argv[3])
  local limit = tonumber(argv[5])
  if limit >= 0 and tonumber(redis.call('GET', keys[5]) or '0') - tonumber(redis.call('GET', keys[7]) or '0') + cost > limit then
    return answer({'over_budget', 0})
  end
  local operationLimit = tonumber(argv[16])
  if operationLimit >= 0 and tonumber(redis.call('GET', keys[11]) or '0') + cost > operationLimit then
    return answer({'over_operation_budget', 0})
  end
  local balance, held, fell = -1, -1, 0
  if argv[12] == '1' then
    local outcome
    outcome, balance, held, fell = holdCredits(keys[8], keys[9], keys[4], keys[10], argv[4], argv[3], argv[13], argv[15], argv[14])
    if outcome == 'insufficient' then return answer({'insufficient', 0, balance, held}) end
  end
  redis.call('SET', keys[1], argv[1] .. ':' .. argv[7] .. ':' .. argv[3] .. ':' .. argv[11], 'EX', argv[2])
  redis.call('HINCRBY', keys[2], 'jobs_charged', 1)
  redis.call('HINCRBY', keys[2], 'credits_spent', cost)
  local seq = redis.call('INCR', keys[4])
  redis.call('ZADD', keys[3], seq, argv[4])
  local spent = redis.call('INCRBY', keys[5], cost)
  redis.call('EXPIRE', keys[5], argv[6])
  keepDayTotal(keys[6], argv[8], spent, argv[9], argv[10])
  if operationLimit >= 0 then
    redis.call('INCRBY', keys[11], cost)
    redis.call('EXPIRE', keys[11], argv[6])
  end
  return answer({'created', tonumber(argv[7]), balance, held, fell})
end
