--[[
  Writes a connection's hash, expiring with its token (index-1.lua follows).
  Input:
    KEYS[1] the connection hash
    ARGV[1] subject
    ARGV[2] issued_at (seconds)
    ARGV[3] expires_at (seconds)
    ARGV[4] revoked, '0' or '1'
    ARGV[5] client id, '' for none
    ARGV[6] client name
  Output:
    1
]]
redis.call('HSET', KEYS[1], 'subject', ARGV[1], 'issued_at', ARGV[2], 'expires_at', ARGV[3], 'revoked', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'client_id', ARGV[5], 'client_name', ARGV[6]) end
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return 1
