import type { QuoteNonceStore } from '../../domain/spend/quote-nonce-store';

/** The embedded backend's used nonces: one process serves every request, so a map is the whole truth. */
export class MemoryQuoteNonceStore implements QuoteNonceStore {
  private readonly used = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  async consume(nonce: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    // Expired nonces go as new ones come, so the map holds at most the quotes of the last ten minutes.
    for (const [seen, expiresAt] of this.used) if (expiresAt <= now) this.used.delete(seen);
    if (this.used.has(nonce)) return false;
    this.used.set(nonce, now + ttlMs);
    return true;
  }
}
