/**
 * The kinds of OAuth state the connector keeps; each is its own key space. `approved` marks a client and
 * redirect URI a person has approved once (see `ConsentService`).
 */
export type OAuthStateKind = 'request' | 'code' | 'refresh' | 'client' | 'cimd' | 'approved';

/** A record handed out by {@link OAuthStateStore.consume}. */
export interface ConsumedRecord {
  value: string;
  /** True when the record had already been consumed: a replayed code or refresh token. */
  reused: boolean;
}

/**
 * Where OAuth flows keep their state (pending consent requests, codes, refresh tokens, client
 * registrations, fetched client metadata), so that any replica can finish a flow another one began. Values
 * are opaque strings; keys of secrets are hashes, never the secrets themselves.
 */
export interface OAuthStateStore {
  /** Saves a record for `ttlSeconds` (0: until deleted), replacing any record under the same key. */
  put(kind: OAuthStateKind, key: string, value: string, ttlSeconds: number): Promise<void>;
  /** A live record that has not been consumed. */
  get(kind: OAuthStateKind, key: string): Promise<string | undefined>;
  /**
   * Atomically marks a record consumed and returns it, saying whether it already was. A consumed record
   * stays until its expiry, so a second use is recognised as reuse rather than as an unknown key.
   */
  consume(kind: OAuthStateKind, key: string): Promise<ConsumedRecord | undefined>;
  /**
   * {@link consume}, but only when the record (a JSON object) has each of `fields` with exactly that string
   * value; otherwise answers `'mismatch'` and leaves the record as it was, consumed or not. Checking and
   * consuming are one atomic step, so a presentation that fails the check can never use a record up.
   */
  consumeMatching(kind: OAuthStateKind, key: string, fields: Readonly<Record<string, string>>): Promise<ConsumedRecord | 'mismatch' | undefined>;
  /** Saves a new record unless `cap` live records of the kind exist already; resolves to whether it did. */
  insertCapped(kind: OAuthStateKind, key: string, value: string, ttlSeconds: number, cap: number): Promise<boolean>;
}
