import { DelayedError, WaitingError, Worker, type Job as BullJob } from 'bullmq';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from 'pino';
import { queueTelemetry } from '../shared/platform/tracing/queue-telemetry';
import type { Config } from '../shared/platform/config/config';
import { createJobObserver } from '../shared/domain/jobs/job-observer';
import { GENERIC_JOB_FAILURE, runAttempt } from '../shared/domain/jobs/job-runner';
import type { JobProgress } from '../shared/domain/jobs/progress-reporter';
import type { JobPolicies, ProcessorMap } from '../shared/domain/jobs/processor';
import type { Metrics } from '../shared/platform/metrics/metrics';
import { readProgress, type BullJobData, type BullJobProgress } from '../shared/adapters/redis/bullmq-job-record';
import { RedisLedgerStore } from '../shared/adapters/redis/redis-ledger-store';
import { inAttemptSpan } from './attempt-span';
import { createCancelWatch } from './cancel-watch';
import { handBack, type RunningJob } from './hand-back';
import { createJobEndings, UnfinishedEnding } from './job-endings';
import { JobShardHistory } from '../shared/adapters/redis/job-shards';
import { JobError } from '../shared/platform/errors/job-error';
import { jobProgressStore } from '../shared/adapters/redis/job-progress-store';
import { closeRedisClient, redisAnswers } from '../shared/adapters/redis/redis-client';
import { openRedisSession } from '../shared/adapters/redis/redis-session';
import { NO_EVENTS, type EventQueue } from '../shared/domain/webhooks/event-queue';
import { newEvent } from '../shared/domain/webhooks/webhook-event';

/** The settings a job worker reads from the configuration. */
export type JobWorkerConfig = Pick<
  Config,
  | 'redis'
  | 'redisKeyPrefix'
  | 'redisCommandTimeoutMs'
  | 'workerConcurrency'
  | 'jobLockMs'
  | 'jobStalledIntervalMs'
  | 'jobQueueShards'
  | 'idempotencyTtlSeconds'
>;

/** Stalls a job is forgiven (it runs again elsewhere); a job that stalls more often keeps killing workers and fails. */
export const MAX_STALLS = 1;
/**
 * What BullMQ is told instead: never to fail a job for stalling by itself. It would fail the job first and
 * leave its refund to a listener afterwards (a worker dying in between misses the refund); the attempt fails
 * it instead ({@link MAX_STALLS}), through the endings that record the decision and refund before BullMQ's mark.
 */
const BULLMQ_MAX_STALLS = 1_000_000;
/** How long a job whose ending could not be completed (Redis failing) waits before it is taken again to finish it. */
const UNFINISHED_ENDING_RETRY_MS = 1000;

/** How often a worker looks for shard counts recorded by processes started after it. */
const SHARD_REFRESH_MS = 30_000;

/** A running BullMQ consumer. */
export interface JobWorker {
  /** True while Redis answers this worker's connection. */
  ready(): Promise<boolean>;
  /** Takes no new jobs, lets running ones finish within `graceMs`, then closes Redis (last). */
  close(graceMs: number): Promise<void>;
}

type BullJobOf = BullJob<BullJobData, Record<string, unknown>, string>;

/**
 * Consumes the paid-jobs queue: dispatches each job by its name (the operation id) to the registry's
 * processor and applies the same attempt rules as the in-memory queue (`runAttempt`): a processor's
 * `JobError` message is shown, anything else becomes the generic message; a non-retryable `JobError` fails
 * at once, others are retried with exponential backoff until the attempts are spent. A worker that dies
 * mid-job loses its lock after `jobLockMs`, and another worker's stalled-job check puts the job back.
 */
export function createJobWorker(options: {
  config: JobWorkerConfig;
  processors: ProcessorMap;
  /**
   * Each operation's policy, built from its paid job's declaration: its timeout and whether a failure is
   * refunded (its attempts and back-off travel with the job, set when it was enqueued). Required, so that a
   * job's settings never come from anywhere but its own declaration; an operation missing here runs without
   * a timeout and refunds its failures (the declared defaults).
   */
  policies: JobPolicies;
  metrics: Metrics;
  logger: Logger;
  /** Where a finished job's event is recorded (none: no events). */
  events?: EventQueue;
  /** Tests only: called right after a job's event is recorded, before the job is marked finished. */
  afterJobEvent?: () => void;
}): JobWorker {
  const { config, processors, policies, metrics, logger, events = NO_EVENTS, afterJobEvent } = options;
  const refundOnFailure = (operation: string) => policies.get(operation)?.refundOnFailure ?? true;
  // The event is recorded before BullMQ marks the job finished (when the processor returns or throws): a
  // worker dying in between leaves the job to run again, which records the same event id (a no-op), and the
  // delivery waits until the job is really finished, sending only the event of its final outcome.
  const recordEvent = async (job: BullJobOf, outcome: 'succeeded' | 'failed' | 'canceled') => {
    if (!events.enabled) return;
    await events.enqueue(newEvent(`job.${outcome}`, job.id!));
    afterJobEvent?.();
  };
  if (!config.redis) throw new Error('the job worker needs Redis');
  // BullMQ requires a connection whose commands wait for Redis (maxRetriesPerRequest: null); it duplicates
  // it for its blocking fetch and closes the duplicates itself, and this client is closed last by us.
  const { client, keys, guard } = openRedisSession({ ...config, redis: config.redis }, 'worker', logger, metrics);
  const observer = createJobObserver(metrics, logger);
  const ledger = new RedisLedgerStore(client, keys, guard);
  const cancels = createCancelWatch(client);
  const jobKey = (job: BullJobOf) => `${job.queueQualifiedName}:${job.id}`;
  const isCancelRequested = (job: BullJobOf) => cancels.requested(jobKey(job)).catch(() => false);
  const endings = createJobEndings({
    client,
    ledger,
    observer,
    retentionSeconds: config.idempotencyTtlSeconds,
    refundOnFailure,
    recordEvent,
  });
  const writeProgress = jobProgressStore(client);
  let closing: Promise<void> | undefined;
  // The jobs this worker holds the lock of, so that a shutdown can hand them back.
  const running = new Map<string, RunningJob>();

  const processJob = async (job: BullJobOf, token?: string): Promise<Record<string, unknown>> => {
    const entry: RunningJob | undefined = token ? { job, token } : undefined;
    if (entry) running.set(job.id!, entry);
    try {
      return await attemptJob(job, entry);
    } catch (error) {
      if (!(error instanceof UnfinishedEnding)) throw error;
      // The ending's decision or refund did not reach Redis: BullMQ must neither fail the job (it would end
      // without its refund) nor retry it as a failed attempt. It is put off instead, and taken again to end
      // it the same way (the decision, when written, is found; the refund is once per job). Should even that
      // move fail, the job's lock lapses and the stalled check hands it back.
      logger.warn({ err: error.cause, job_id: job.id, operation: job.name }, 'could not finish ending the job; it will be taken again');
      if (token) await job.moveToDelayed(Date.now() + UNFINISHED_ENDING_RETRY_MS, token).catch(() => undefined);
      throw new DelayedError();
    } finally {
      running.delete(job.id!);
    }
  };
  const attemptJob = async (job: BullJobOf, entry: RunningJob | undefined): Promise<Record<string, unknown>> => {
    const attempt = job.attemptsMade + 1;
    const maxAttempts = job.opts.attempts ?? 1;
    const progress = readProgress(job.progress);
    // What the job's progress field holds, kept here so that each write (a report, the start, the error)
    // carries the others: BullMQ replaces the whole field.
    let stored: BullJobProgress = progress;
    const store = (update: BullJobProgress): Promise<void> => {
      stored = { ...stored, ...update };
      return saveProgress(job, stored);
    };
    // A processor's reports take the cheaper path (one field, no event): they are the frequent writes. They
    // are sent without waiting for the reply: every write about this job (reports, the error, BullMQ's own
    // completion) goes over this one connection, which Redis applies in the order sent, so the job does not
    // wait a round trip for its last report and the order still holds.
    const report = async (reported: JobProgress): Promise<void> => {
      stored = { ...stored, reported };
      writeProgress(`${job.queueQualifiedName}:${job.id}`, stored).catch((error: unknown) =>
        logger.debug({ err: error, job_id: job.id }, 'progress not saved'),
      );
    };
    const attempts = Math.max(job.attemptsStarted, attempt);
    // The first start across retries, in BullMQ's milliseconds: a succeeding job formats and parses no date.
    const startedMs = progress.started_at === undefined ? (job.processedOn ?? Date.now()) : Date.parse(progress.started_at);
    // A saved start is kept as written; only a start that was never saved is formatted.
    const startedAt = () => progress.started_at ?? new Date(startedMs).toISOString();
    // A first attempt's start is BullMQ's processedOn, which readers fall back to, so nothing is written for
    // it (a write per job cost a sixth of the worker's Redis commands; bench/README.md). A failed attempt saves
    // the start with its error; only a restart after a crash (a stall) finds none and keeps its own.
    if (!progress.started_at && attempts > 1) await store({ started_at: startedAt() });
    const observed = { id: job.id!, operation: job.name, attempt: attempts };
    // Taken again (a retry, a stall, a hand-back) after it was decided failed or a cancel was asked: it ends
    // so without starting.
    const decided = attempts > 1 ? await endings.decided(job) : undefined;
    if (decided === 'failed') {
      return endings.failed(
        job,
        { ...progress, started_at: startedAt() },
        progress.error ?? GENERIC_JOB_FAILURE,
        observed,
        Date.now() - startedMs,
      );
    }
    if (decided === 'canceled') return endings.canceled(job, { ...progress, started_at: startedAt() }, observed, Date.now() - startedMs);
    // Taken again after stalling more often than forgiven: it keeps killing workers, so it fails without running.
    if (job.stalledCounter > MAX_STALLS) {
      logger.warn({ job_id: job.id, operation: job.name, stalls: job.stalledCounter }, 'job stalled too often; it fails');
      return endings.failed(job, { ...progress, started_at: startedAt() }, GENERIC_JOB_FAILURE, observed, Date.now() - startedMs);
    }
    observer.started(observed, attempts === 1 ? startedMs - Date.parse(job.data.created_at) : undefined);

    // One controller per attempt: its signal is the processor's, fired on the operation's timeout, and on a
    // cancel requested through any API while this worker holds the job.
    const controller = new AbortController();
    const stopWatching = cancels.abortOnCancel(jobKey(job), controller);
    const outcome = await inAttemptSpan({ id: job.id!, operation: job.name, attempt }, (progressEvent) =>
      runAttempt(
        processors,
        { id: job.id!, operation: job.name, input: job.data.input },
        {
          attempt,
          policy: { attempts: maxAttempts, timeoutMs: policies.get(job.name)?.timeoutMs },
          saveProgress: (reported) => {
            progressEvent(reported.percent);
            return report(reported);
          },
          controller,
          onUnexpected: (error) => logger.error({ err: error, job_id: job.id, operation: job.name, attempt }, 'job attempt threw'),
        },
      ),
    ).finally(stopWatching);
    // Handed back while this attempt ran: the job is the queue's again and another worker may already be
    // running it, so this attempt's outcome is dropped (recording it would finish the job twice). WaitingError
    // tells BullMQ the job has left `active` by our hand and that it must neither complete nor fail it.
    if (entry?.handedBack && (await entry.handedBack)) {
      logger.info({ job_id: job.id, operation: job.name, attempt }, 'attempt ended after its job was handed back; outcome dropped');
      throw new WaitingError();
    }
    if (outcome.kind === 'succeeded') {
      await recordEvent(job, 'succeeded');
      observer.finished(observed, 'succeeded', Date.now() - startedMs);
      return outcome.result;
    }
    // A cancel requested while it ran wins over anything but a success: the work was not delivered.
    // (A timeout aborts the signal too, with a JobError for its reason: that is a failed attempt, not a cancel.)
    const abortedByCancel = controller.signal.aborted && !(controller.signal.reason instanceof JobError);
    if (abortedByCancel || (await isCancelRequested(job))) {
      return endings.canceled(job, { ...stored, started_at: startedAt() }, observed, Date.now() - startedMs);
    }
    if (outcome.kind === 'retry') {
      // The safe message is kept beside the job: BullMQ's failedReason may also hold its own messages.
      await store({ started_at: startedAt(), error: outcome.message });
      logger.warn({ job_id: job.id, operation: job.name, attempt, error: outcome.message }, 'job attempt failed; retrying');
      throw new Error(outcome.message);
    }
    // The attempt's reports are flushed by now (runAttempt settles its reporter), and `stored` holds the last.
    return endings.failed(job, { ...stored, started_at: startedAt() }, outcome.message, observed, Date.now() - startedMs);
  };

  // One consumer per shard, each on its own blocking connection and each running up to WORKER_CONCURRENCY jobs:
  // every shard that any recorded shard count implies, so shards that left the set are still drained.
  const workers = new Map<number, Worker<BullJobData, Record<string, unknown>, string>>();
  const consume = (shard: number): void => {
    if (workers.has(shard) || closing !== undefined) return;
    const worker = new Worker<BullJobData, Record<string, unknown>, string>(keys.jobQueueName(shard), processJob, {
      connection: client,
      prefix: keys.bullPrefix,
      telemetry: queueTelemetry(),
      concurrency: config.workerConcurrency,
      lockDuration: config.jobLockMs,
      stalledInterval: config.jobStalledIntervalMs,
      // Stalls are counted by BullMQ and judged by the attempt (MAX_STALLS), never failed by BullMQ itself.
      maxStalledCount: BULLMQ_MAX_STALLS,
    });
    worker.on('error', (error: Error) => {
      // Connection errors are already counted and logged (once per outage) by the client.
      if (!/ECONNREFUSED|ECONNRESET|Connection is closed|ETIMEDOUT|Stream isn't writeable/.test(error.message)) {
        logger.warn({ err: error, shard }, 'job worker error');
      }
    });
    // A job that a release before 0.7.0 let BullMQ fail for stalling (its deferred failure was recorded then) is
    // failed when next fetched, without our processor: its refund and event are made here, after the fact.
    worker.on('failed', (job) => {
      if (!job?.deferredFailure) return;
      endings
        .stalledOut(job)
        .catch((error: unknown) =>
          logger.warn({ err: error, job_id: job.id }, 'could not refund or record the event of a job that stalled too often'),
        );
    });
    worker.on('stalled', (jobId: string) =>
      logger.warn({ job_id: jobId }, 'job stalled (its worker stopped renewing the lock); it will run again'),
    );
    workers.set(shard, worker);
  };
  const history = new JobShardHistory(client, keys, config.jobQueueShards);
  const consumeRecorded = async (): Promise<void> => {
    const span = await history.load().then(
      () => history.span,
      () => config.jobQueueShards,
    );
    for (let shard = 0; shard < span; shard++) consume(shard);
  };
  for (let shard = 0; shard < config.jobQueueShards; shard++) consume(shard);
  void consumeRecorded();
  const refresher = setInterval(() => void consumeRecorded(), SHARD_REFRESH_MS);
  refresher.unref();

  return {
    ready: async () => [...workers.values()].every((worker) => worker.isRunning()) && redisAnswers(client),
    close: (graceMs) => {
      closing ??= (async () => {
        clearInterval(refresher);
        let timer: NodeJS.Timeout | undefined;
        const drained = Promise.all([...workers.values()].map((worker) => worker.close())).then(
          () => true,
          () => true,
        );
        const expired = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), graceMs)));
        const finished = await Promise.race([drained, expired]).catch(() => false);
        clearTimeout(timer);
        if (!finished) {
          // Out of time: the unfinished jobs are handed back (active → waiting, lock released), so the next
          // worker takes them at once, without waiting for the lock to expire and without spending the one
          // stall a job is forgiven. Should Redis not take a job back, its lock expires and the stalled check
          // retakes it. Processing is at-least-once either way.
          const handedBack = await handBack([...running.values()], logger);
          logger.warn(
            { grace_ms: graceMs, handed_back: handedBack },
            'jobs still running at the end of the grace period; handed back to the queue',
          );
          await Promise.race([Promise.all([...workers.values()].map((worker) => worker.disconnect().catch(() => undefined))), delay(500)]);
        }
        // Cancels are watched until the end: a job finishing within the grace period can still be stopped.
        cancels.close();
        await closeRedisClient(client, 500);
      })();
      return closing;
    },
  };
}

/** Progress writes are best effort: losing one only loses a start time or falls back to the generic message. */
async function saveProgress(job: BullJobOf, progress: BullJobProgress): Promise<void> {
  await job.updateProgress(progress as Record<string, unknown>).catch(() => undefined);
}
