--[[
  Counts a hit on a fixed rate-limit window shared by every replica (includes/hit-window.lua).
  Input:
    KEYS[1] the window's counter
    ARGV[1] window length (seconds)
  Output:
    {count, ttl}: the window's count after this hit, its TTL in seconds
]]
--- @include "hit-window"
local count, ttl = hitWindow(KEYS[1], ARGV[1])
return {count, ttl}
