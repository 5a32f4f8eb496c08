import type { Logger } from 'pino';

/** What the check sends through: an ioredis client, single node or cluster. */
export interface PolicySource {
  call(command: string, ...args: string[]): Promise<unknown>;
  info(section: string): Promise<string>;
}

/**
 * Warns when Redis may evict keys. Idempotency records, charges and queued jobs must never disappear under
 * memory pressure: with any policy but `noeviction` a full Redis silently drops them, which turns into
 * double charges and lost jobs. `noeviction` makes a full Redis refuse writes instead (the API answers 503).
 * Some managed services disable `CONFIG`, so `INFO memory` is the fallback.
 */
export async function checkEvictionPolicy(client: PolicySource, logger: Logger): Promise<string | undefined> {
  const policy = await readPolicy(client).catch(() => undefined);
  if (policy === undefined) logger.warn('could not read the Redis maxmemory-policy; it must be noeviction');
  else if (policy !== 'noeviction') {
    logger.warn(
      { maxmemory_policy: policy },
      'Redis maxmemory-policy is not noeviction: jobs, charges and idempotency records may be evicted',
    );
  }
  return policy;
}

async function readPolicy(client: PolicySource): Promise<string | undefined> {
  try {
    const reply = (await client.call('CONFIG', 'GET', 'maxmemory-policy')) as string[];
    if (Array.isArray(reply) && typeof reply[1] === 'string') return reply[1];
  } catch {
    // CONFIG may be renamed or forbidden; INFO is almost always allowed.
  }
  const info = await client.info('memory');
  return /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
}
