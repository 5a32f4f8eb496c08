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
}

/** The OAuth client a connection was granted to. */
export interface ConnectionClient {
  id: string;
  name: string;
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
}
