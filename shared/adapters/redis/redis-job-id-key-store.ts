import type { RedisClient } from './redis-client';
import type { JobIdKeyStore } from '../../domain/jobs/job-id-key-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

// Store-if-absent and read back in one atomic step: two replicas starting together cannot each keep their
// own key, and the key never expires (job ids must stay stable for as long as any record keyed by them).
const LOAD = `
redis.call('SET', KEYS[1], ARGV[1], 'NX')
return redis.call('GET', KEYS[1])
`;

/**
 * The job-id key in Redis, shared by every replica. Reading it only lets someone compute job ids, which
 * Redis already holds in the clear, so it needs no more protection than the rest of the data there.
 */
export class RedisJobIdKeyStore implements JobIdKeyStore {
  private readonly loadScript: LuaScript<string>;

  constructor(
    client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.loadScript = defineLuaScript(client, 'job_id_key_load', 1, LOAD);
  }

  load(initial: string): Promise<string> {
    return this.guard.commands(() => this.loadScript([this.keys.jobIdKey], [initial]));
  }
}
