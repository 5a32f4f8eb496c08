import type { RedisClient } from './redis-client';
import type { Connection, ConnectionStore } from '../stores/connection-store';
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
 * Connections and revocations in Redis. Every token check reads the connection from Redis, so a revocation
 * through any replica refuses the token on every replica from the very next request (no cache to expire).
 */
export class RedisConnectionStore implements ConnectionStore {
  private readonly indexScript: LuaScript<number>;
  private readonly createScript: LuaScript<number>;
  private readonly revokeScript: LuaScript<number>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.indexScript = defineLuaScript(client, 'connection_index', 1, INDEX);
    this.createScript = defineLuaScript(client, 'connection_create_hash', 1, CREATE);
    this.revokeScript = defineLuaScript(client, 'connection_revoke', 1, REVOKE);
  }

  async create(connection: Connection): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    await this.guard.commands(async () => {
      await this.createScript(
        [this.keys.connection(connection.id)],
        [connection.subject, connection.issuedAt, connection.expiresAt, connection.revoked ? '1' : '0', connection.client?.id ?? '', connection.client?.name ?? ''],
      );
      await this.indexScript([this.keys.subjectConnections(connection.subject)], [connection.id, connection.expiresAt, now]);
    });
  }

  async get(id: string): Promise<Connection | undefined> {
    const fields = await this.guard.commands(() => this.client.hgetall(this.keys.connection(id)));
    if (!fields.subject) return undefined;
    return {
      id,
      subject: fields.subject,
      issuedAt: Number(fields.issued_at),
      expiresAt: Number(fields.expires_at),
      revoked: fields.revoked !== '0',
      ...(fields.client_id ? { client: { id: fields.client_id, name: fields.client_name ?? '' } } : {}),
    };
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

}
