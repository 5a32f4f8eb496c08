import {
  type ClientRegistrationLimits,
  type ClientRegistrationOutcome,
  type ConsumedRecord,
  MAX_EVICTIONS_PER_REGISTRATION,
  type OAuthStateKind,
  type OAuthStateStore,
} from '../../domain/oauth/oauth-state-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

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
    this.putScript = defineLuaScript(client, 'redis-oauth-state-store/put');
    this.consumeScript = defineLuaScript(client, 'redis-oauth-state-store/consume');
    this.consumeMatchingScript = defineLuaScript(client, 'redis-oauth-state-store/consume-matching');
    this.registerClientScript = defineLuaScript(client, 'redis-oauth-state-store/register-client');
    this.recordClientGrantScript = defineLuaScript(client, 'redis-oauth-state-store/record-client-grant');
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

  /**
   * Registrations made before 0.6.0 are in the index only: whether they hold a grant is unknown, so they are
   * never evicted and expire as they always would have.
   */
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
