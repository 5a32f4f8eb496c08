import type { PageQuery } from '../../platform/pagination/page';
import type { RedisClient } from './redis-client';

/**
 * Reads one page of a sequence-scored sorted set, newest first, strictly below `before` (or, given only
 * `after`, oldest first strictly above it). Shared by things, the job index and credit entries.
 */
export async function pageBySeq(
  client: RedisClient,
  key: string,
  { limit, before, after }: PageQuery,
): Promise<Array<{ seq: number; member: string }>> {
  const max = before === undefined ? '+inf' : `(${before}`;
  const reply =
    before === undefined && after !== undefined
      ? await client.zrangebyscore(key, `(${after}`, '+inf', 'WITHSCORES', 'LIMIT', 0, limit)
      : await client.zrevrangebyscore(key, max, '-inf', 'WITHSCORES', 'LIMIT', 0, limit);
  const items: Array<{ seq: number; member: string }> = [];
  for (let i = 0; i + 1 < reply.length; i += 2) items.push({ member: reply[i], seq: Number(reply[i + 1]) });
  return items;
}
