import { RedisKeys } from '../../../shared/adapters/redis/redis-keys';
import { type RedisAccess, redisCommand } from '../../testkit/redis-topologies';

/**
 * Counts, per job id, the `completed` events in a BullMQ queue's event stream (`<prefix>:<queue>:events`) on
 * the node at `port`. BullMQ appends that event in the same script that moves a job to completed, so the
 * stream on the current primary holds exactly the completions that Redis recorded: a completion that died
 * with a primary before it reached a replica is not there, a job completed twice is there twice.
 */
export async function recordedCompletions(port: number, access: RedisAccess, streamKey: string): Promise<Map<string, number>> {
  const entries = (await redisCommand(port, access, ['XRANGE', streamKey, '-', '+'])) as Array<[string, string[]]>;
  const counts = new Map<string, number>();
  for (const [, fields] of entries) {
    const event: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) event[fields[i]] = fields[i + 1];
    if (event.event === 'completed') counts.set(event.jobId, (counts.get(event.jobId) ?? 0) + 1);
  }
  return counts;
}

/** The event stream of the first job-queue shard under a key prefix, as the connector names it (`clustered`: hash-tagged). */
export function queueEventsKey(prefix: string, clustered: boolean): string {
  const keys = new RedisKeys(prefix, clustered);
  return `${keys.bullPrefix}:${keys.jobQueueName(0)}:events`;
}
