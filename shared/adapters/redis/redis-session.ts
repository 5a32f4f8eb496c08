import type { Logger } from 'pino';
import type { Config } from '../../platform/config/config';
import type { Metrics } from '../../platform/metrics/metrics';
import { createRedisClient, type RedisClient, type RedisClientRole } from './redis-client';
import { RedisGuard } from './redis-guard';
import { RedisKeys } from './redis-keys';

/** What a process opens a Redis client for; each purpose has its role and its name in `CLIENT LIST`. */
export type RedisPurpose = 'api' | 'worker' | 'webhooks';

const ROLES: Readonly<Record<RedisPurpose, RedisClientRole>> = {
  // Requests must fail fast while Redis is away (503); BullMQ's consumers need commands that wait.
  api: 'commands',
  worker: 'worker',
  webhooks: 'worker',
};

/** A client with the key layout and the command deadline that go with it: everything a Redis store takes. */
export interface RedisSession {
  readonly client: RedisClient;
  readonly keys: RedisKeys;
  readonly guard: RedisGuard;
}

/** The configuration a session is opened from. */
export type RedisSessionConfig = Pick<Config, 'redisKeyPrefix' | 'redisCommandTimeoutMs'> & { redis: NonNullable<Config['redis']> };

/**
 * Opens a Redis session for one purpose: the one place where a process's clients are created from the
 * configuration, whatever the process (API, worker, `npm run dev`) and the role.
 */
export function openRedisSession(config: RedisSessionConfig, purpose: RedisPurpose, logger: Logger, metrics: Metrics): RedisSession {
  const client = createRedisClient({
    connection: config.redis,
    role: ROLES[purpose],
    connectionName: `${config.redisKeyPrefix}${purpose}`,
    commandTimeoutMs: config.redisCommandTimeoutMs,
    logger,
    metrics,
  });
  return {
    client,
    keys: RedisKeys.forConnection(config.redisKeyPrefix, config.redis),
    // The deadline sits a little above the command timeout, so the client's own timeout normally answers
    // first and the guard only catches waits the client does not bound.
    guard: new RedisGuard(config.redisCommandTimeoutMs + 500, () => metrics.redisErrors.inc()),
  };
}
