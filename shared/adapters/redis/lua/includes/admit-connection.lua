--[[
  admitConnection(connKey, windowKey, subject, windowSeconds, at, resolution): the connection must be `subject`'s
  and live; its use is recorded at `at`, then the window is hit (recordUse, hitWindow); needs record-use, hit-window.
  Output:
    {'revoked'}, the window not hit; or {'admitted', count, ttl, client id, client name}
]]
local function admitConnection(connKey, windowKey, subject, windowSeconds, at, resolution)
  local conn = redis.call('HMGET', connKey, 'subject', 'revoked', 'client_id', 'client_name', 'last_used_at')
  if conn[1] ~= subject or conn[2] ~= '0' then return {'revoked'} end
  recordUse(connKey, conn[5], at, resolution)
  local count, ttl = hitWindow(windowKey, windowSeconds)
  return {'admitted', count, ttl, conn[3], conn[4]}
end
