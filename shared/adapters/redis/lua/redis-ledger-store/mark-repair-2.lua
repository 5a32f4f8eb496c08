--[[
  Takes the repair mark of a job's hold for a retry about to enqueue the job, while the key's record is still
  that acceptance's (the orphan sweep's release drops it in the step that releases the hold), in the subject's slot.
  Input:
    KEYS[1] the job's idempotency record
    KEYS[2] the hold's repair mark
    ARGV[1] the acceptance (ms), as the idempotency record holds it
    ARGV[2] the mark (`<ms>:<id>`)
    ARGV[3] how long the mark is kept (seconds)
  Output:
    1 when the mark was taken; 0 when the record is gone or another acceptance's (nothing written)
]]
local claim = redis.call('GET', KEYS[1])
if not claim or string.match(claim, ':(%d*)$') ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'EX', ARGV[3])
return 1
