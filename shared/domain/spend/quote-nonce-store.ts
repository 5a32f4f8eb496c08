/**
 * Remembers the nonces of spend quotes already used, so a signed quote buys one acceptance only, on whichever
 * replica it is presented. A nonce is kept until its quote expires, after which the quote is refused anyway.
 */
export interface QuoteNonceStore {
  /** Marks `nonce` used for `ttlMs`: true for the one call that marked it, false when it was used already. */
  consume(nonce: string, ttlMs: number): Promise<boolean>;
}
