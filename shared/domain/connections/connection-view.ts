import type { Connection } from './connection-store';

/** A connection as the dashboard sees it (its list and the connection events). */
export interface ConnectionView {
  connection_id: string;
  subject: string;
  kind: 'link' | 'oauth';
  client: { client_id: string; client_name: string } | null;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
  revoked: boolean;
}

/** The dashboard's view of a stored connection: created when issued, `last_used_at` null until first used. */
export function toConnectionView(connection: Connection): ConnectionView {
  const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
  return {
    connection_id: connection.id,
    subject: connection.subject,
    kind: connection.client ? 'oauth' : 'link',
    client: connection.client ? { client_id: connection.client.id, client_name: connection.client.name } : null,
    created_at: iso(connection.issuedAt),
    last_used_at: connection.lastUsedAt === undefined ? null : iso(connection.lastUsedAt),
    expires_at: iso(connection.expiresAt),
    revoked: connection.revoked,
  };
}
