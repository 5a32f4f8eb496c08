import type { RateLimitStore, RateWindow } from '../../domain/admission/rate-limit-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

/** Fixed windows shared by every replica: a subject's budget is the same whichever replica it reaches. */
export class RedisRateLimitStore implements RateLimitStore {
  private readonly hitScript: LuaScript<[number, number]>;

  constructor(
    client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.hitScript = defineLuaScript(client, 'redis-rate-limit-store/hit');
  }

  async hit(key: string, windowSeconds: number): Promise<RateWindow> {
    const [count, ttl] = await this.guard.commands(() => this.hitScript([this.keys.rateWindow(key)], [windowSeconds]));
    return { count: Number(count), resetInSeconds: Math.max(1, Number(ttl)) };
  }
}
