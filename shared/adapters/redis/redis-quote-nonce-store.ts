import type { QuoteNonceStore } from '../../domain/spend/quote-nonce-store';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

/** Used nonces in Redis: one `SET NX PX` per quote, atomic on its own, so two replicas cannot both accept one quote. */
export class RedisQuoteNonceStore implements QuoteNonceStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {}

  async consume(nonce: string, ttlMs: number): Promise<boolean> {
    const set = await this.guard.commands(() => this.client.set(this.keys.spendQuoteNonce(nonce), '1', 'PX', Math.ceil(ttlMs), 'NX'));
    return set === 'OK';
  }
}
