import type { Worker } from 'bullmq';
import type { Logger } from 'pino';
import type { BullJobData } from '../shared/adapters/redis/bullmq-job-record';
import { JobShardHistory } from '../shared/adapters/redis/job-shards';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import type { RedisKeys } from '../shared/adapters/redis/redis-keys';
import type { Config } from '../shared/platform/config/config';
import { createBullmqWorker, disconnectWorkers, drainWorkers } from './bullmq-worker';
import type { BullJobOf } from './running-job';

/**
 * What BullMQ is told about stalls: never to fail a job for stalling by itself. It would fail the job first
 * and leave its refund to a listener afterwards (a worker dying in between misses the refund); the job
 * lifecycle fails it instead (`MAX_STALLS`), through the ending that records the decision and refunds before
 * BullMQ's mark.
 */
const BULLMQ_MAX_STALLS = 1_000_000;

/** How often a worker looks for shard counts recorded by processes started after it. */
const SHARD_REFRESH_MS = 30_000;

type PaidJobsWorker = Worker<BullJobData, Record<string, unknown>, string>;

/** What the consumers are built from. */
export interface ShardConsumersOptions {
  client: RedisClient;
  keys: RedisKeys;
  config: Pick<Config, 'workerConcurrency' | 'jobLockMs' | 'jobStalledIntervalMs' | 'jobQueueShards'>;
  logger: Logger;
  processJob: (job: BullJobOf, token?: string) => Promise<Record<string, unknown>>;
  /** A job BullMQ failed by itself (a release before 0.7.0 let it fail stalled jobs): its settlement and event are made after the fact. */
  onFailedByBullmq: (job: BullJobOf) => void;
}

/**
 * One BullMQ consumer per paid-jobs shard, each on its own blocking connection and each running up to
 * WORKER_CONCURRENCY jobs: every shard that any recorded shard count implies, so shards that left the set are
 * still drained; counts recorded later by other processes are picked up every {@link SHARD_REFRESH_MS}.
 */
export class ShardConsumers {
  private readonly workers = new Map<number, PaidJobsWorker>();
  private readonly history: JobShardHistory;
  private readonly refresher: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly options: ShardConsumersOptions) {
    this.history = new JobShardHistory(options.client, options.keys, options.config.jobQueueShards);
    for (let shard = 0; shard < options.config.jobQueueShards; shard++) this.consume(shard);
    void this.consumeRecorded();
    this.refresher = setInterval(() => void this.consumeRecorded(), SHARD_REFRESH_MS);
    this.refresher.unref();
  }

  /** True while every consumer runs. */
  running(): boolean {
    return [...this.workers.values()].every((worker) => worker.isRunning());
  }

  /** Takes no new jobs and lets running ones finish; resolves true once all have, false when `graceMs` ran out first. */
  async drain(graceMs: number): Promise<boolean> {
    this.closed = true;
    clearInterval(this.refresher);
    return drainWorkers([...this.workers.values()], graceMs);
  }

  /** Cuts the consumers' connections (after a drain ran out of time), waiting half a second at most. */
  async disconnect(): Promise<void> {
    await disconnectWorkers([...this.workers.values()]);
  }

  private consume(shard: number): void {
    if (this.workers.has(shard) || this.closed) return;
    const { client, keys, config, processJob, logger } = this.options;
    const worker: PaidJobsWorker = createBullmqWorker({
      queueName: keys.jobQueueName(shard),
      processor: processJob,
      client,
      keys,
      config,
      concurrency: config.workerConcurrency,
      // Stalls are counted by BullMQ and judged by the job lifecycle (MAX_STALLS), never failed by BullMQ itself.
      maxStalledCount: BULLMQ_MAX_STALLS,
      logger,
      errorLog: { message: 'job worker error', context: { shard } },
    });
    this.listen(worker);
    this.workers.set(shard, worker);
  }

  private listen(worker: PaidJobsWorker): void {
    const { logger, onFailedByBullmq } = this.options;
    worker.on('failed', (job) => {
      if (job?.deferredFailure) onFailedByBullmq(job);
    });
    worker.on('stalled', (jobId: string) =>
      logger.warn({ job_id: jobId }, 'job stalled (its worker stopped renewing the lock); it will run again'),
    );
  }

  private async consumeRecorded(): Promise<void> {
    const span = await this.history.load().then(
      () => this.history.span,
      () => this.options.config.jobQueueShards,
    );
    for (let shard = 0; shard < span; shard++) this.consume(shard);
  }
}
