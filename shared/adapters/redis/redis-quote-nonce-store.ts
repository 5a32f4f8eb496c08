import type { QuoteAnswer, QuoteNonceStore, SettledQuote } from '../../domain/spend/quote-nonce-store';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

/**
 * Quote answers in Redis: one `SET NX PX` per quote records the first answer atomically, so two replicas cannot
 * both give one; a later answer reads the one held (it never changes once set).
 */
export class RedisQuoteNonceStore implements QuoteNonceStore {
  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {}

  async settle(nonce: string, answer: QuoteAnswer, ttlMs: number): Promise<SettledQuote> {
    const key = this.keys.spendQuoteNonce(nonce);
    const set = await this.guard.commands(() => this.client.set(key, answer, 'PX', Math.ceil(ttlMs), 'NX'));
    if (set === 'OK') return { answer, first: true };
    const held = await this.guard.commands(() => this.client.get(key));
    // A key written before answers were recorded holds '1': that quote was accepted. Gone meanwhile: expired, refused.
    return { answer: held === 'accepted' || held === '1' ? 'accepted' : 'refused', first: false };
  }
}
