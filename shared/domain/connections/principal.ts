import type { ConnectionClient } from './connection-store';

/** Who a verified bearer token acts for. */
export interface Principal {
  subject: string;
  connectionId: string;
  /** Seconds since the epoch. */
  issuedAt: number;
  /** Seconds since the epoch. */
  expiresAt: number;
  /** The OAuth client holding the connection, when it is an OAuth grant. */
  client?: ConnectionClient;
}
