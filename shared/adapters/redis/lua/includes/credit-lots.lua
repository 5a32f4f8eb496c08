--[[
  A subject's lots (the rest of each positive grant, `lot:<grant id>` = `<state>|<remaining>|<expiry ms>|<order>`
  in its account hash): spends draw the open lot that expires first, see redis-credit-store.ts.
  Output:
    nowMs, readLots, writeLot, lotIsDue, dueLotCredits, drawLots (answers the allocation) and giveBackLots
    (answers the parts of expired and of voided lots)
]]
local function nowMs()
  local time = redis.call('TIME')
  return tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end

local function parseLot(gid, value)
  local state, remaining, expires, order = string.match(value, '^(%a+)|(%d+)|(%-?%d+)|(%d+)$')
  return {gid = gid, state = state, remaining = tonumber(remaining), expires = tonumber(expires), order = tonumber(order)}
end

local function readLots(account)
  local flat = redis.call('HGETALL', account)
  local lots = {}
  for i = 1, #flat, 2 do
    local gid = string.match(flat[i], '^lot:(.*)$')
    if gid then lots[#lots + 1] = parseLot(gid, flat[i + 1]) end
  end
  return lots
end

local function writeLot(account, lot)
  redis.call('HSET', account, 'lot:' .. lot.gid, lot.state .. '|' .. lot.remaining .. '|' .. lot.expires .. '|' .. lot.order)
end

local function lotIsDue(lot, now)
  return lot.state == 'open' and lot.expires >= 0 and lot.expires <= now
end

local function dueLotCredits(account, now)
  local due = 0
  for _, lot in ipairs(readLots(account)) do
    if lotIsDue(lot, now) then due = due + lot.remaining end
  end
  return due
end

local function lotExpiry(lot)
  if lot.expires < 0 then return math.huge end
  return lot.expires
end

local function drawLots(account, amount, now)
  local order = {}
  for _, lot in ipairs(readLots(account)) do
    if lot.state == 'open' and lot.remaining > 0 and not lotIsDue(lot, now) then order[#order + 1] = lot end
  end
  table.sort(order, function(a, b)
    if lotExpiry(a) ~= lotExpiry(b) then return lotExpiry(a) < lotExpiry(b) end
    return a.order < b.order
  end)
  local allocation, need = {}, amount
  for _, lot in ipairs(order) do
    if need <= 0 then break end
    local take = math.min(lot.remaining, need)
    lot.remaining = lot.remaining - take
    need = need - take
    writeLot(account, lot)
    allocation[#allocation + 1] = {lot.gid, take}
  end
  if need > 0 then allocation[#allocation + 1] = {'', need} end
  return allocation
end

local function giveBackLots(account, allocation, amount)
  local expired, voided = {}, {}
  local left = amount
  for i = #allocation, 1, -1 do
    if left <= 0 then break end
    local gid, credits = allocation[i][1], allocation[i][2]
    local back = math.min(credits, left)
    left = left - back
    local value = gid ~= '' and redis.call('HGET', account, 'lot:' .. gid)
    if value then
      local lot = parseLot(gid, value)
      if lot.state == 'open' then
        lot.remaining = lot.remaining + back
        writeLot(account, lot)
      elseif lot.state == 'expired' then
        expired[#expired + 1] = {gid, back}
      else
        voided[#voided + 1] = {gid, back}
      end
    end
  end
  return expired, voided
end
