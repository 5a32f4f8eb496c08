import calculateSlot from 'cluster-key-slot';
import type { RedisClient } from './redis-client';
import type { RedisKeys } from './redis-keys';

/**
 * The paid-job shard of a job: a pure function of its id and the shard count, so every replica and every
 * retry computes the same one. CRC16 of the id (Redis Cluster's slot function, fast and well spread).
 */
export function shardOf(jobId: string, shards: number): number {
  return shards <= 1 ? 0 : calculateSlot(jobId) % shards;
}

/**
 * The shard counts a deployment has run with (`JOB_QUEUE_SHARDS`), recorded in Redis by every process that
 * starts, so that changing the count loses nothing: workers consume every shard any recorded count implies
 * (a shard that left the set is still drained), and a job read by its id alone is looked for on the shard
 * each recorded count gives it. A count of 1 always counts as recorded: it is what every deployment ran
 * with before shards existed (their jobs are on shard 0, the `jobs` queue), whether or not it was written.
 * The set only grows; see docs/redis.md for retiring old counts.
 */
export class JobShardHistory {
  private counts: number[];

  constructor(
    private readonly client: RedisClient,
    private readonly keys: RedisKeys,
    readonly current: number,
  ) {
    this.counts = current === 1 ? [1] : [current, 1];
  }

  /** Records this process's count and reads every recorded one. */
  async load(): Promise<readonly number[]> {
    const [, members] = await Promise.all([
      this.client.sadd(this.keys.jobShardCounts, String(this.current)),
      this.client.smembers(this.keys.jobShardCounts),
    ]);
    const recorded = new Set([1, ...members.map(Number).filter((n) => Number.isInteger(n) && n >= 1)]);
    recorded.delete(this.current);
    this.counts = [this.current, ...[...recorded].sort((a, b) => a - b)];
    return this.counts;
  }

  /** Number of shards to consume: every shard index any recorded count has used. */
  get span(): number {
    return Math.max(...this.counts);
  }

  /** Shards a job may be on, the current count's first; no shard twice. */
  candidates(jobId: string): number[] {
    return [...new Set(this.counts.map((n) => shardOf(jobId, n)))];
  }

  /**
   * Re-reads the counts after a job was not found where they say (one small-set read, about what the miss
   * itself cost); true when a count this process did not know has been recorded since.
   */
  async refreshAfterMiss(): Promise<boolean> {
    const before = this.counts.length;
    await this.load();
    return this.counts.length !== before;
  }
}
