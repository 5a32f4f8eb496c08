import type { RedisClient } from './redis-client';
import type { RateLimitStore, RateWindow } from '../../domain/admission/rate-limit-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

/**
 * Lua that counts a hit on the window at `key` and starts its clock, leaving `count` and `ttl` as locals; every
 * script that hits a window uses it, so they all keep the same rules. Run inside one script: were INCR and
 * EXPIRE separate, a failure in between would leave a counter without expiry that blocks its key forever; the
 * TTL < 0 branch also repairs such a key if one ever exists (EXPIRE NX, written portably for Redis before 7).
 */
export function hitWindowLua(key: string, windowSeconds: string): string {
  return `
local count = redis.call('INCR', ${key})
local ttl = redis.call('TTL', ${key})
if ttl < 0 then
  redis.call('EXPIRE', ${key}, ${windowSeconds})
  ttl = tonumber(${windowSeconds})
end
`;
}

const HIT = `${hitWindowLua('KEYS[1]', 'ARGV[1]')}
return {count, ttl}
`;

/** Fixed windows shared by every replica: a subject's budget is the same whichever replica it reaches. */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly hitScript: LuaScript<[number, number]>;

  constructor(
    client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.hitScript = defineLuaScript(client, 'rate_hit', 1, HIT);
  }

  async hit(key: string, windowSeconds: number): Promise<RateWindow> {
    const [count, ttl] = await this.guard.commands(() => this.hitScript([this.keys.rateWindow(key)], [windowSeconds]));
    return { count: Number(count), resetInSeconds: Math.max(1, Number(ttl)) };
  }
}
