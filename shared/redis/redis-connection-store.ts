import type Redis from 'ioredis';
import type { Connection, ConnectionStore } from '../stores/connection-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

// Stores the connection and adds it to its subject's index in one step. Both expire with the token: the
// index lives as long as its longest-lived member, so it never outlives every connection it names.
const CREATE = `
redis.call('HSET', KEYS[1], 'subject', ARGV[1], 'issued_at', ARGV[2], 'expires_at', ARGV[3], 'revoked', ARGV[6])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'client_id', ARGV[7], 'client_name', ARGV[8]) end
redis.call('EXPIREAT', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
local ttl = tonumber(ARGV[3]) - tonumber(ARGV[5])
if ttl > redis.call('TTL', KEYS[2]) then redis.call('EXPIRE', KEYS[2], math.max(ttl, 1)) end
return 1
`;

// Check-and-set, so two replicas revoking the same connection count it once.
const REVOKE = `
if redis.call('HGET', KEYS[1], 'revoked') == '0' then
  redis.call('HSET', KEYS[1], 'revoked', '1')
  return 1
end
return 0
`;

// Revokes every live connection in the subject's index and drops ids whose connection has expired.
// ARGV[1] is the connection key prefix; those keys are derived from the index's members.
const REVOKE_SUBJECT = `
local revoked = 0
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local key = ARGV[1] .. id
  local state = redis.call('HGET', key, 'revoked')
  if not state then
    redis.call('SREM', KEYS[1], id)
  elseif state == '0' then
    redis.call('HSET', key, 'revoked', '1')
    revoked = revoked + 1
  end
end
return revoked
`;

// The subject's live connection ids; like REVOKE_SUBJECT, it drops ids whose connection has expired.
const LIVE_IDS = `
local live = {}
for _, id in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local state = redis.call('HGET', ARGV[1] .. id, 'revoked')
  if not state then
    redis.call('SREM', KEYS[1], id)
  elseif state == '0' then
    live[#live + 1] = id
  end
end
return live
`;

/**
 * Connections and revocations in Redis. Every token check reads the connection from Redis, so a revocation
 * through any replica refuses the token on every replica from the very next request (no cache to expire).
 */
export class RedisConnectionStore implements ConnectionStore {
  private readonly createScript: LuaScript<number>;
  private readonly revokeScript: LuaScript<number>;
  private readonly revokeSubjectScript: LuaScript<number>;
  private readonly liveIdsScript: LuaScript<string[]>;

  constructor(
    private readonly client: Redis,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.createScript = defineLuaScript(client, 'connection_create', 2, CREATE);
    this.revokeScript = defineLuaScript(client, 'connection_revoke', 1, REVOKE);
    this.revokeSubjectScript = defineLuaScript(client, 'connection_revoke_subject', 1, REVOKE_SUBJECT);
    this.liveIdsScript = defineLuaScript(client, 'connection_live_ids', 1, LIVE_IDS);
  }

  async create(connection: Connection): Promise<void> {
    const now = Math.floor(Date.now() / 1000);
    await this.guard.commands(() =>
      this.createScript(
        [this.keys.connection(connection.id), this.keys.subjectConnections(connection.subject)],
        [connection.subject, connection.issuedAt, connection.expiresAt, connection.id, now, connection.revoked ? '1' : '0', connection.client?.id ?? '', connection.client?.name ?? ''],
      ),
    );
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
    return this.guard.commands(() => this.revokeScript([this.keys.connection(id)], []));
  }

  async revokeSubject(subject: string): Promise<number> {
    return this.guard.commands(() => this.revokeSubjectScript([this.keys.subjectConnections(subject)], [this.keys.connection('')]));
  }

  async liveIds(subject: string): Promise<string[]> {
    return this.guard.commands(() => this.liveIdsScript([this.keys.subjectConnections(subject)], [this.keys.connection('')]));
  }
}
