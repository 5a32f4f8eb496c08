import type { JobIdKeyStore } from '../../domain/jobs/job-id-key-store';
import { defineLuaScript, type LuaScript } from './lua-script';
import type { RedisClient } from './redis-client';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';

/**
 * The job-id key in Redis, shared by every replica. Reading it only lets someone compute job ids, which
 * Redis already holds in the clear, so it needs no more protection than the rest of the data there. It never
 * expires: job ids must stay stable while any record keyed by them lives.
 */
export class RedisJobIdKeyStore implements JobIdKeyStore {
  private readonly loadScript: LuaScript<string>;

  constructor(
    client: RedisClient,
    private readonly keys: RedisKeys,
    private readonly guard: RedisGuard,
  ) {
    this.loadScript = defineLuaScript(client, 'redis-job-id-key-store/load');
  }

  load(initial: string): Promise<string> {
    return this.guard.commands(() => this.loadScript([this.keys.jobIdKey], [initial]));
  }
}
