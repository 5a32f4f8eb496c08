import type { RedisClient } from './redis-client';
import { LAST_USE_RESOLUTION_SECONDS, type Connection, type ConnectionStore } from '../../domain/connections/connection-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

// A connection's hash and its subject's index are in different hash slots on a cluster, so they are written
// by two single-key scripts, the hash first. A failure in between leaves a connection the index does not
// name, but its token was never handed out (the call that makes it answers only after both writes). And an
// index entry always has a hash written before it, so an entry without one is an expired connection, safe
// to drop. Both expire with the token: the index lives as long as its longest-lived member.
// KEYS: subject index. ARGV: connection id, expires_at, now (seconds).
const INDEX = `
redis.call('SADD', KEYS[1], ARGV[1])
local ttl = tonumber(ARGV[2]) - tonumber(ARGV[3])
if ttl > redis.call('TTL', KEYS[1]) then redis.call('EXPIRE', KEYS[1], math.max(ttl, 1)) end
return 1
`;

// KEYS: connection hash. ARGV: subject, issued_at, expires_at, revoked, client id, client name.
const CREATE = `
redis.call('HSET', KEYS[1], 'subject', ARGV[1], 'issued_at', ARGV[2], 'expires_at', ARGV[3], 'revoked', ARGV[4])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'client_id', ARGV[5], 'client_name', ARGV[6]) end
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return 1
`;

// Check-and-set, so two replicas revoking the same connection count it once. -1: no such connection.
const REVOKE = `
local revoked = redis.call('HGET', KEYS[1], 'revoked')
if revoked == '0' then
  redis.call('HSET', KEYS[1], 'revoked', '1')
  return 1
end
if not revoked then return -1 end
return 0
`;

/**
 * The Lua that records a use of a connection whose hash is `key` at `at` (seconds, a Lua expression) when
 * `lastUsed` (the stored `last_used_at`, `false` when absent) is none (or not a number: it is rewritten
 * rather than failing the request) or at least `resolution` seconds older. Shared by the touch script and the one-node admission script, which has just read the field.
 */
export function recordUseLua(key: string, lastUsed: string, at: string, resolution: string): string {
  return `if not tonumber(${lastUsed}) or tonumber(${at}) - tonumber(${lastUsed}) >= tonumber(${resolution}) then redis.call('HSET', ${key}, 'last_used_at', ${at}) end`;
}

// Only an existing connection is touched: a hash written after its expiry would have no TTL.
// KEYS: connection hash. ARGV: now (seconds), resolution (seconds).
const TOUCH = `
local conn = redis.call('HMGET', KEYS[1], 'subject', 'last_used_at')
if not conn[1] then return 0 end
${recordUseLua('KEYS[1]', 'conn[2]', 'ARGV[1]', 'ARGV[2]')}
return 1
`;

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
    this.indexScript = defineLuaScript(client, 'connection_index', 1, INDEX);
    this.createScript = defineLuaScript(client, 'connection_create_hash', 1, CREATE);
    this.revokeScript = defineLuaScript(client, 'connection_revoke', 1, REVOKE);
    this.touchScript = defineLuaScript(client, 'connection_touch', 1, TOUCH);
  }

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
