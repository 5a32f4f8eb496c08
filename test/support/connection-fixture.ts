import type { Connection } from '../../shared/domain/connections/connection-store';

/** A live link connection of `subject` that expires in an hour; `overrides` replace any field. */
export function liveConnection(id: string, subject = 'user-1', overrides: Partial<Connection> = {}): Connection {
  const now = Math.floor(Date.now() / 1000);
  return { id, subject, issuedAt: now, expiresAt: now + 3600, revoked: false, ...overrides };
}
