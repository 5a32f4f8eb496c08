import type { PageQuery } from '../../platform/pagination/page';
import type { RedisClient } from './redis-client';

/**
 * Reads one page of a sequence-scored sorted set, newest first, strictly below `before`. Shared by things
 * and the job index.
 */
export async function pageBySeq(
  client: RedisClient,
  key: string,
  { limit, before }: PageQuery,
): Promise<Array<{ seq: number; member: string }>> {
  const max = before === undefined ? '+inf' : `(${before}`;
  const reply = await client.zrevrangebyscore(key, max, '-inf', 'WITHSCORES', 'LIMIT', 0, limit);
  const items: Array<{ seq: number; member: string }> = [];
  for (let i = 0; i + 1 < reply.length; i += 2) items.push({ member: reply[i], seq: Number(reply[i + 1]) });
  return items;
}
