/** What the person answered to a quote: the one answer it ever carries. */
export type QuoteAnswer = 'accepted' | 'refused';

/** The answer a quote holds after a `settle`, and whether this call was the one that gave it. */
export interface SettledQuote {
  readonly answer: QuoteAnswer;
  readonly first: boolean;
}

/**
 * Remembers the answer given to each spend quote, by its nonce, on whichever replica the quote is presented: the
 * first answer stands, so a quote declined once can never be spent, and one accepted once keeps naming its call. A
 * nonce is kept until its quote expires, after which the quote is refused anyway.
 */
export interface QuoteNonceStore {
  /** Records `answer` for `nonce` for `ttlMs` unless it has one already; answers the one it holds. */
  settle(nonce: string, answer: QuoteAnswer, ttlMs: number): Promise<SettledQuote>;
}
