import { type Processor, Worker } from 'bullmq';
import type { Logger } from 'pino';
import { isConnectionError } from '../shared/adapters/redis/connection-error';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import type { RedisKeys } from '../shared/adapters/redis/redis-keys';
import type { Config } from '../shared/platform/config/config';
import { withinGrace } from '../shared/platform/lifecycle/within-grace';
import { queueTelemetry } from '../shared/platform/tracing/queue-telemetry';

/** How long cutting the connections of workers that ran out of time may take. */
const DISCONNECT_WAIT_MS = 500;

/** One of the project's BullMQ consumers: a queue, what runs its jobs, and how it treats locks, stalls and retries. */
export interface BullmqWorkerOptions<D, R> {
  queueName: string;
  processor: Processor<D, R, string>;
  client: RedisClient;
  keys: Pick<RedisKeys, 'bullPrefix'>;
  config: Pick<Config, 'jobLockMs' | 'jobStalledIntervalMs'>;
  concurrency: number;
  /** The stalls BullMQ forgives before failing a job by itself. */
  maxStalledCount: number;
  /** The delay before a retry, for jobs whose backoff names a custom strategy. */
  backoffStrategy?: (attemptsMade: number) => number;
  logger: Logger;
  /** The log line of an error that is not a lost connection, and what it carries besides the error. */
  errorLog: { message: string; context?: Record<string, unknown> };
}

/**
 * A BullMQ worker on the shared client, with the project's prefix, telemetry and lock settings. BullMQ requires
 * a connection whose commands wait for Redis (maxRetriesPerRequest: null); it duplicates it for its blocking
 * fetch and closes the duplicates itself. Connection errors are left to the client's own listener.
 */
export function createBullmqWorker<D, R>(options: BullmqWorkerOptions<D, R>): Worker<D, R, string> {
  const { client, keys, config, logger, errorLog, backoffStrategy } = options;
  const worker = new Worker<D, R, string>(options.queueName, options.processor, {
    connection: client,
    prefix: keys.bullPrefix,
    telemetry: queueTelemetry(),
    concurrency: options.concurrency,
    lockDuration: config.jobLockMs,
    stalledInterval: config.jobStalledIntervalMs,
    maxStalledCount: options.maxStalledCount,
    ...(backoffStrategy ? { settings: { backoffStrategy } } : {}),
  });
  worker.on('error', (error: Error) => {
    if (!isConnectionError(error)) logger.warn({ err: error, ...errorLog.context }, errorLog.message);
  });
  return worker;
}

/** Lets the workers finish their running jobs: true once all have closed, false when `graceMs` ran out first. */
export function drainWorkers(workers: readonly Pick<Worker, 'close'>[], graceMs: number): Promise<boolean> {
  return withinGrace(
    Promise.all(workers.map((worker) => worker.close())).catch(() => undefined),
    graceMs,
  );
}

/** Cuts the workers' connections (after a drain ran out of time), waiting {@link DISCONNECT_WAIT_MS} at most. */
export async function disconnectWorkers(workers: readonly Pick<Worker, 'disconnect'>[]): Promise<void> {
  await withinGrace(Promise.all(workers.map((worker) => worker.disconnect().catch(() => undefined))), DISCONNECT_WAIT_MS);
}
