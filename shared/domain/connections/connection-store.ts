/** A link between a subject and a token; the token's `jti` is the connection id. */
export interface Connection {
  id: string;
  subject: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  /** Seconds since the epoch. */
  expiresAt: number;
  revoked: boolean;
  /** Set when the connection is an OAuth grant: the client that holds it. */
  client?: ConnectionClient;
  /**
   * When its token last passed admission (seconds since the epoch), to within
   * {@link LAST_USE_RESOLUTION_SECONDS}; absent until the first use (and on connections stored before uses
   * were recorded).
   */
  lastUsedAt?: number;
}

/** The OAuth client a connection was granted to. */
export interface ConnectionClient {
  id: string;
  name: string;
}

/**
 * A connection's last use is written at most this often: a token that calls in a tight loop costs one
 * write a minute, not one per call, and the dashboard shows the time to the minute.
 */
export const LAST_USE_RESOLUTION_SECONDS = 60;

/** True when a use at `at` (seconds) is to be recorded over the one stored: none yet, or one a minute old. */
export function lastUseIsStale(lastUsedAt: number | undefined, at: number): boolean {
  return lastUsedAt === undefined || at - lastUsedAt >= LAST_USE_RESOLUTION_SECONDS;
}

/** Where connections and their revocations live; a revocation must be visible to every replica. */
export interface ConnectionStore {
  /** Saves a new connection; it may be forgotten once it has expired. */
  create(connection: Connection): Promise<void>;
  get(id: string): Promise<Connection | undefined>;
  /** Revokes one connection; resolves to the number newly revoked (0 or 1). */
  revoke(id: string): Promise<number>;
  /** Revokes every live connection of a subject; resolves to the number newly revoked. */
  revokeSubject(subject: string): Promise<number>;
  /** Ids of the subject's connections that are neither revoked nor expired (the events record one per id). */
  liveIds(subject: string): Promise<string[]>;
  /** Every connection of the subject that has not expired, revoked ones included, in no particular order. */
  list(subject: string): Promise<Connection[]>;
  /**
   * Records a use of an existing connection at `at` (seconds) when {@link lastUseIsStale}, decided against
   * the stored value in one step, so replicas racing on a stale value write once between them. A connection
   * that no longer exists is left absent.
   */
  touch(id: string, at: number): Promise<void>;
}
