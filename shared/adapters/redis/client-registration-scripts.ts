// Lua for dynamically registered clients. Four keys, one slot on a cluster (the `client` kind's tag):
// KEYS[1] the client's record (a hash {v, c}), KEYS[2] `oauth:client:index`, every registration scored by
// its record's expiry (ms), which the cap counts; KEYS[3] `oauth:client:unused`, those never granted,
// scored likewise; KEYS[4] `oauth:client:granted`, those granted, scored by the end of their last grant (ms).
// Members are record key names. Registrations made by releases before 0.6.0 (before the two sets existed) are
// in the index only: whether they hold a grant is unknown, so they are never evicted, and expire as they
// always would have.

/**
 * Registers a client under the cap, evicting to make room: never-granted registrations first (the one
 * closest to expiry, i.e. the oldest), then those whose last grant has ended (ended longest ago first).
 * ARGV: value, ttl seconds, cap, now ms, keep-after-grant seconds, most evictions. Answers
 * {registered 0/1, evicted}.
 */
export const REGISTER_CLIENT = `
local now = tonumber(ARGV[4])
local cap = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
-- A granted record lives until keep-after-grant past its grant's end at most, so an older member is gone.
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[5]) * 1000)
local count = redis.call('ZCARD', KEYS[2])
local evicted = 0
local tries = 0
while count >= cap and tries < tonumber(ARGV[6]) do
  tries = tries + 1
  local victim = redis.call('ZRANGE', KEYS[3], 0, 0)[1]
  if not victim then victim = redis.call('ZRANGEBYSCORE', KEYS[4], '-inf', now, 'LIMIT', 0, 1)[1] end
  if not victim then break end
  redis.call('DEL', victim)
  redis.call('ZREM', KEYS[3], victim)
  redis.call('ZREM', KEYS[4], victim)
  local removed = redis.call('ZREM', KEYS[2], victim)
  count = count - removed
  evicted = evicted + removed
end
if count >= cap and evicted == 0 then return {0, 0} end
local expiry = now + tonumber(ARGV[2]) * 1000
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'c', '0')
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], expiry, KEYS[1])
redis.call('ZADD', KEYS[3], expiry, KEYS[1])
return {1, evicted}
`;

/**
 * Records a grant for a live registration: the new value, out of the unused set, into the granted one
 * scored by the latest grant end, and a lifetime of at least keep-after-grant past that end.
 * ARGV: value, grant end ms, keep-after-grant seconds, now ms. Answers 1, or 0 when the record is gone.
 */
export const RECORD_CLIENT_GRANT = `
local score = redis.call('ZSCORE', KEYS[2], KEYS[1])
if not score or redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local ends = tonumber(ARGV[2])
local previous = redis.call('ZSCORE', KEYS[4], KEYS[1])
if previous and tonumber(previous) > ends then ends = tonumber(previous) end
local expiry = math.max(tonumber(score), ends + tonumber(ARGV[3]) * 1000)
redis.call('HSET', KEYS[1], 'v', ARGV[1])
redis.call('PEXPIRE', KEYS[1], math.max(1, math.floor(expiry - tonumber(ARGV[4]))))
redis.call('ZADD', KEYS[2], expiry, KEYS[1])
redis.call('ZREM', KEYS[3], KEYS[1])
redis.call('ZADD', KEYS[4], ends, KEYS[1])
return 1
`;
