import { type Connection, type ConnectionStore, lastUseIsStale } from '../../domain/connections/connection-store';

/** Connections in a Map; expired ones are dropped lazily. */
export class MemoryConnectionStore implements ConnectionStore {
  private readonly byId = new Map<string, Connection>();

  async create(connection: Connection): Promise<void> {
    this.sweep();
    this.byId.set(connection.id, { ...connection });
  }

  async get(id: string): Promise<Connection | undefined> {
    const found = this.byId.get(id);
    return found ? copy(found) : undefined;
  }

  async revoke(id: string): Promise<number> {
    const found = this.byId.get(id);
    if (!found || found.revoked) return 0;
    found.revoked = true;
    return 1;
  }

  async revokeSubject(subject: string): Promise<number> {
    let count = 0;
    for (const connection of this.byId.values()) {
      if (connection.subject === subject && !connection.revoked) {
        connection.revoked = true;
        count++;
      }
    }
    return count;
  }

  async liveIds(subject: string): Promise<string[]> {
    const now = Date.now() / 1000;
    return [...this.byId.values()].filter((c) => c.subject === subject && !c.revoked && c.expiresAt >= now).map((c) => c.id);
  }

  async list(subject: string): Promise<Connection[]> {
    const now = Date.now() / 1000;
    return [...this.byId.values()].filter((c) => c.subject === subject && c.expiresAt > now).map(copy);
  }

  async touch(id: string, at: number): Promise<void> {
    const found = this.byId.get(id);
    if (found && lastUseIsStale(found.lastUsedAt, at)) found.lastUsedAt = at;
  }

  private sweep(): void {
    const now = Date.now() / 1000;
    for (const [id, connection] of this.byId) if (connection.expiresAt < now) this.byId.delete(id);
  }
}

/** A copy, so callers never hold the stored object. */
function copy(connection: Connection): Connection {
  return { ...connection, ...(connection.client ? { client: { ...connection.client } } : {}) };
}
