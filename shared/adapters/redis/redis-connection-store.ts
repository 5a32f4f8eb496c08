import { type Connection, type ConnectionStore, LAST_USE_RESOLUTION_SECONDS } from '../../domain/connections/connection-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

/**
 * Connections and revocations in Redis. Every token check reads the connection from Redis, so a revocation
 * through any replica refuses the token on every replica from the very next request (no cache to expire).
 */
export class RedisConnectionStore implements ConnectionStore {
  private readonly indexScript: LuaScript<number>;
  private readonly createScript: LuaScript<number>;
  private readonly revokeScript: LuaScript<number>;
  private readonly touchScript: LuaScript<number>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.indexScript = defineLuaScript(client, 'redis-connection-store/index');
    this.createScript = defineLuaScript(client, 'redis-connection-store/create-hash');
    this.revokeScript = defineLuaScript(client, 'redis-connection-store/revoke');
    this.touchScript = defineLuaScript(client, 'redis-connection-store/touch');
  }

  /**
   * The hash, then the index entry (two slots on a cluster): a failure between leaves a connection whose token
   * was never handed out, and an index entry without its hash is an expired connection, safe to drop.
   */
  async create(connection: Connection): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    await this.guard.commands(async () => {
      await this.createScript(
        [this.keys.connection(connection.id)],
        [
          connection.subject,
          connection.issuedAt,
          connection.expiresAt,
          connection.revoked ? '1' : '0',
          connection.client?.id ?? '',
          connection.client?.name ?? '',
        ],
      );
      await this.indexScript([this.keys.subjectConnections(connection.subject)], [connection.id, connection.expiresAt, now]);
    });
  }

  async get(id: string): Promise<Connection | undefined> {
    return connectionOf(id, await this.guard.commands(() => this.client.hgetall(this.keys.connection(id))));
  }

  async revoke(id: string): Promise<number> {
    return Math.max(0, await this.guard.commands(() => this.revokeScript([this.keys.connection(id)], [])));
  }

  /**
   * Revokes every live connection the subject's index names, each by its own check-and-set (they live in
   * other slots than the index on a cluster), and drops the ids whose connection has expired.
   */
  async revokeSubject(subject: string): Promise<number> {
    const index = this.keys.subjectConnections(subject);
    return this.guard.commands(async () => {
      const ids = await this.client.smembers(index);
      const outcomes = await Promise.all(ids.map((id) => this.revokeScript([this.keys.connection(id)], [])));
      const expired = ids.filter((_, i) => Number(outcomes[i]) < 0);
      if (expired.length > 0) await this.client.srem(index, ...expired);
      return outcomes.filter((n) => Number(n) === 1).length;
    });
  }

  /** The subject's live connection ids, read one by one like {@link revokeSubject}; expired ids are dropped. */
  async liveIds(subject: string): Promise<string[]> {
    const index = this.keys.subjectConnections(subject);
    return this.guard.commands(async () => {
      const ids = await this.client.smembers(index);
      const states = await Promise.all(ids.map((id) => this.client.hget(this.keys.connection(id), 'revoked')));
      const expired = ids.filter((_, i) => states[i] === null);
      if (expired.length > 0) await this.client.srem(index, ...expired);
      return ids.filter((_, i) => states[i] === '0');
    });
  }

  /**
   * The subject's index is a set (the layout of every release so far), so it has no order: every member's
   * hash is read, one by one as {@link liveIds} does, and the caller sorts. A subject holds a handful of
   * connections (one per app or link, each lasting the token lifetime), so this stays small; ids whose
   * connection has expired are dropped from the index on the way.
   */
  async list(subject: string): Promise<Connection[]> {
    const index = this.keys.subjectConnections(subject);
    return this.guard.commands(async () => {
      const ids = await this.client.smembers(index);
      const found = await Promise.all(ids.map(async (id) => connectionOf(id, await this.client.hgetall(this.keys.connection(id)))));
      const expired = ids.filter((_, i) => found[i] === undefined);
      if (expired.length > 0) await this.client.srem(index, ...expired);
      return found.filter((connection): connection is Connection => connection !== undefined);
    });
  }

  async touch(id: string, at: number): Promise<void> {
    await this.guard.commands(() => this.touchScript([this.keys.connection(id)], [at, LAST_USE_RESOLUTION_SECONDS]));
  }
}

/**
 * A connection from its hash's fields; undefined when the hash is gone. Hashes written by releases before
 * 0.4.0, which did not record uses, have no `last_used_at` and read as never used.
 */
function connectionOf(id: string, fields: Record<string, string>): Connection | undefined {
  if (!fields.subject) return undefined;
  return {
    id,
    subject: fields.subject,
    issuedAt: Number(fields.issued_at),
    expiresAt: Number(fields.expires_at),
    revoked: fields.revoked !== '0',
    ...(fields.client_id ? { client: { id: fields.client_id, name: fields.client_name ?? '' } } : {}),
    ...(/^\d{1,12}$/.test(fields.last_used_at ?? '') ? { lastUsedAt: Number(fields.last_used_at) } : {}),
  };
}
