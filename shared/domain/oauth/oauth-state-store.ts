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

/** How {@link OAuthStateStore.registerClient} keeps a new registration. */
export interface ClientRegistrationLimits {
  /** How long the registration lives unless a grant is recorded for it. */
  ttlSeconds: number;
  /** Registrations (of `registerClient`, not `put`) that may live at once. */
  cap: number;
  /** How long a registration is kept past the end of its last grant. */
  keepAfterGrantSeconds: number;
}

/** What {@link OAuthStateStore.registerClient} did. */
export interface ClientRegistrationOutcome {
  registered: boolean;
  /** Registrations dropped to make room. */
  evicted: number;
}

/**
 * Registrations one `registerClient` may evict: one makes room at the cap; a few more bring the count back
 * down, a little at a time, after the cap was lowered.
 */
export const MAX_EVICTIONS_PER_REGISTRATION = 10;

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
  consumeMatching(
    kind: OAuthStateKind,
    key: string,
    fields: Readonly<Record<string, string>>,
  ): Promise<ConsumedRecord | 'mismatch' | undefined>;
  /**
   * Saves a new dynamically registered client, in one atomic step with the cap. At the cap it first evicts,
   * oldest first, registrations that never had a grant, then registrations whose every grant has ended; a
   * registration whose grant may still be live is never evicted. When nothing can be evicted the client
   * is not saved.
   */
  registerClient(key: string, value: string, limits: ClientRegistrationLimits): Promise<ClientRegistrationOutcome>;
  /**
   * Records a grant for a registered client, ending at `grantEndsAt` (ms since the epoch): its value
   * becomes `value`, it is no longer evicted before that end, and it lives at least `keepAfterGrantSeconds`
   * past it. Resolves to false when the registration is gone (expired or evicted).
   */
  recordClientGrant(key: string, value: string, grantEndsAt: number, keepAfterGrantSeconds: number): Promise<boolean>;
}
