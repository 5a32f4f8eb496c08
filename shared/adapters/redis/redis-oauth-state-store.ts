import type { RedisClient } from './redis-client';
import {
  MAX_EVICTIONS_PER_REGISTRATION,
  type ClientRegistrationLimits,
  type ClientRegistrationOutcome,
  type ConsumedRecord,
  type OAuthStateKind,
  type OAuthStateStore,
} from '../../domain/oauth/oauth-state-store';
import { RECORD_CLIENT_GRANT, REGISTER_CLIENT } from './client-registration-scripts';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

// A record is a hash {v: value, c: consumed 0/1}. ARGV[2] is the TTL in seconds, 0 for none.
const PUT = `
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'v', ARGV[1], 'c', '0')
if tonumber(ARGV[2]) > 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return 1
`;

// Marks the record consumed and says whether it already was, in one step: two replicas redeeming the same
// code at once cannot both see a first use.
const CONSUME = `
local fields = redis.call('HMGET', KEYS[1], 'v', 'c')
if not fields[1] then return nil end
redis.call('HSET', KEYS[1], 'c', '1')
return {fields[1], fields[2]}
`;

// CONSUME, only when the JSON value holds each ARGV pair (field name, expected string): checked and marked in
// one step, so a presentation that fails the check leaves the record exactly as it was. 0: a mismatch.
const CONSUME_MATCHING = `
local fields = redis.call('HMGET', KEYS[1], 'v', 'c')
if not fields[1] then return nil end
local ok, record = pcall(cjson.decode, fields[1])
if not ok or type(record) ~= 'table' then return 0 end
for i = 1, #ARGV, 2 do
  if record[ARGV[i]] ~= ARGV[i + 1] then return 0 end
end
redis.call('HSET', KEYS[1], 'c', '1')
return {fields[1], fields[2]}
`;

let lastStamp = 0;

/**
 * Milliseconds since the epoch, strictly increasing within the process (a microsecond apart at least), so
 * registrations made within one millisecond keep their order in the sorted sets: oldest is evicted first.
 */
function stamp(): number {
  lastStamp = Math.max(Date.now(), lastStamp + 0.001);
  return lastStamp;
}

/** OAuth state in Redis, shared by every replica; the TTLs are Redis's own. */
export class RedisOAuthStateStore implements OAuthStateStore {
  private readonly putScript: LuaScript<number>;
  private readonly consumeScript: LuaScript<[string, string] | null>;
  private readonly consumeMatchingScript: LuaScript<[string, string] | 0 | null>;
  private readonly registerClientScript: LuaScript<[number, number]>;
  private readonly recordClientGrantScript: LuaScript<number>;

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.putScript = defineLuaScript(client, 'oauth_put', 1, PUT);
    this.consumeScript = defineLuaScript(client, 'oauth_consume', 1, CONSUME);
    this.consumeMatchingScript = defineLuaScript(client, 'oauth_consume_matching', 1, CONSUME_MATCHING);
    this.registerClientScript = defineLuaScript(client, 'oauth_register_client', 4, REGISTER_CLIENT);
    this.recordClientGrantScript = defineLuaScript(client, 'oauth_record_client_grant', 4, RECORD_CLIENT_GRANT);
  }

  async put(kind: OAuthStateKind, key: string, value: string, ttlSeconds: number): Promise<void> {
    await this.guard.commands(() => this.putScript([this.keys.oauth(kind, key)], [value, Math.max(0, Math.ceil(ttlSeconds))]));
  }

  async get(kind: OAuthStateKind, key: string): Promise<string | undefined> {
    const [value, consumed] = await this.guard.commands(() => this.client.hmget(this.keys.oauth(kind, key), 'v', 'c'));
    return value !== null && consumed === '0' ? value : undefined;
  }

  async consume(kind: OAuthStateKind, key: string): Promise<ConsumedRecord | undefined> {
    const found = await this.guard.commands(() => this.consumeScript([this.keys.oauth(kind, key)], []));
    return found ? { value: found[0], reused: found[1] === '1' } : undefined;
  }

  async consumeMatching(
    kind: OAuthStateKind,
    key: string,
    fields: Readonly<Record<string, string>>,
  ): Promise<ConsumedRecord | 'mismatch' | undefined> {
    const found = await this.guard.commands(() => this.consumeMatchingScript([this.keys.oauth(kind, key)], Object.entries(fields).flat()));
    if (found === 0) return 'mismatch';
    return found ? { value: found[0], reused: found[1] === '1' } : undefined;
  }

  async registerClient(
    key: string,
    value: string,
    { ttlSeconds, cap, keepAfterGrantSeconds }: ClientRegistrationLimits,
  ): Promise<ClientRegistrationOutcome> {
    const [registered, evicted] = await this.guard.commands(() =>
      this.registerClientScript(this.clientKeys(key), [
        value,
        Math.max(1, Math.ceil(ttlSeconds)),
        cap,
        stamp(),
        keepAfterGrantSeconds,
        MAX_EVICTIONS_PER_REGISTRATION,
      ]),
    );
    return { registered: registered === 1, evicted };
  }

  async recordClientGrant(key: string, value: string, grantEndsAt: number, keepAfterGrantSeconds: number): Promise<boolean> {
    const recorded = await this.guard.commands(() =>
      this.recordClientGrantScript(this.clientKeys(key), [value, Math.ceil(grantEndsAt), keepAfterGrantSeconds, stamp()]),
    );
    return recorded === 1;
  }

  /** A client's record and the three sorted sets its registration is in: one slot on a cluster. */
  private clientKeys(key: string): string[] {
    return [this.keys.oauth('client', key), this.keys.oauthIndex('client'), this.keys.oauthUnusedClients, this.keys.oauthGrantedClients];
  }
}
