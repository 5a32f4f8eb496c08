import type { QuoteAnswer, QuoteNonceStore, SettledQuote } from '../../domain/spend/quote-nonce-store';

/** The embedded backend's quote answers: one process serves every request, so a map is the whole truth. */
export class MemoryQuoteNonceStore implements QuoteNonceStore {
  private readonly answers = new Map<string, { answer: QuoteAnswer; expiresAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async settle(nonce: string, answer: QuoteAnswer, ttlMs: number): Promise<SettledQuote> {
    const now = this.now();
    // Expired nonces go as new ones come, so the map holds at most the quotes of the last ten minutes.
    for (const [seen, { expiresAt }] of this.answers) if (expiresAt <= now) this.answers.delete(seen);
    const held = this.answers.get(nonce);
    if (held) return { answer: held.answer, first: false };
    this.answers.set(nonce, { answer, expiresAt: now + ttlMs });
    return { answer, first: true };
  }
}
