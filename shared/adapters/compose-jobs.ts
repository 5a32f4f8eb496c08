// The composition root of the jobs side: every JobLifecycle, job queue and JobService of the product is built
// here, for both backends and the worker (the way of a job: shared/domain/jobs/job-lifecycle.ts).
import type { Logger } from 'pino';
import type { CreditStore } from '../domain/credits/credit-store';
import type { ClaimReader } from '../domain/jobs/claim-reader';
import { type JobEvents, JobLifecycle } from '../domain/jobs/job-lifecycle';
import type { JobObserver } from '../domain/jobs/job-observer';
import type { JobQueue } from '../domain/jobs/job-queue';
import { JobService, type JobServiceParts } from '../domain/jobs/job-service';
import { billingMoney, DEFAULT_TERMS, type PrepaidPorts } from '../domain/jobs/job-settlement';
import type { JobPolicies, ProcessorMap } from '../domain/jobs/processor';
import type { LedgerStore } from '../domain/ledger/ledger-store';
import type { Config } from '../platform/config/config';
import { MemoryJobQueue } from './memory/memory-job-queue';
import { BullmqJobQueue } from './redis/bullmq-job-queue';
import type { RedisSession } from './redis/redis-session';

/** The settings a job lifecycle reads: the billing mode and the retention its refund records outlive. */
export type LifecycleConfig = Pick<Config, 'idempotencyTtlSeconds'> & Partial<Pick<Config, 'billing' | 'x402'>>;

/** What the one lifecycle of a process is built from. */
export interface LifecycleParts {
  config: LifecycleConfig;
  /** Where holds are captured and charges refunded: at once on the embedded stores, a round trip on Redis. */
  settle: PrepaidPorts;
  /** Where final events are recorded. */
  events: JobEvents;
  observer?: JobObserver;
  /** Each operation's timeout and settlement terms (none: no timeout, failures refunded). */
  policies?: JobPolicies;
  /** The processors of the jobs this process runs (none: it only settles jobs a cancel ended in the queue). */
  processors?: ProcessorMap;
  /** Tests only: called right after a job's event is recorded, before the job is marked ended. */
  afterJobEvent?: () => void;
}

/**
 * The job lifecycle of a process, whatever runs its attempts (the embedded queue, the BullMQ worker) or only
 * settles queued cancels (the API on Redis): the one place one is built.
 */
export function composeLifecycle(parts: LifecycleParts): JobLifecycle {
  const { config, policies } = parts;
  return new JobLifecycle({
    processors: parts.processors,
    policies,
    money: billingMoney(config.billing?.mode === 'prepaid' || config.x402 !== undefined, parts.settle, config.idempotencyTtlSeconds),
    events: parts.events,
    observer: parts.observer,
    terms: (operation) => policies?.get(operation) ?? DEFAULT_TERMS,
    afterJobEvent: parts.afterJobEvent,
  });
}

/** Settlement on the stores of a shared backend (Redis): the credit store's capture and the ledger's refund. */
export function settleOn(stores: { credits: Pick<CreditStore, 'capture'>; ledger: Pick<LedgerStore, 'refund'> }): PrepaidPorts {
  return { capture: (request) => stores.credits.capture(request), refund: (request) => stores.ledger.refund(request) };
}

/** The settings the embedded queue reads. */
export type MemoryJobsConfig = LifecycleConfig & Pick<Config, 'workerConcurrency' | 'jobAttempts' | 'jobBackoffMs'>;

/** The embedded queue, running its jobs in this process through the lifecycle built from `parts`. */
export function composeMemoryJobQueue(parts: LifecycleParts & { config: MemoryJobsConfig }): MemoryJobQueue {
  const { config } = parts;
  return new MemoryJobQueue({
    lifecycle: composeLifecycle(parts),
    concurrency: config.workerConcurrency,
    attempts: config.jobAttempts,
    backoffMs: config.jobBackoffMs,
    policies: parts.policies,
    retentionMs: config.idempotencyTtlSeconds * 1000,
  });
}

/** The settings a BullMQ job queue reads; without `redisMinReplicas` no replica is waited for. */
export type BullmqJobsConfig = Pick<Config, 'jobAttempts' | 'jobBackoffMs' | 'idempotencyTtlSeconds' | 'jobQueueShards'> &
  Partial<Pick<Config, 'redisMinReplicas' | 'redisWaitMs'>>;

/**
 * The BullMQ job queue on a session: the API's, which adds and reads jobs (with its `policies`' attempts
 * and back-off), or a reader's, such as the webhook worker's (no policies: it never adds a job).
 */
export function composeBullmqJobQueue(
  session: RedisSession,
  parts: { config: BullmqJobsConfig; logger: Logger; policies?: JobPolicies },
): BullmqJobQueue {
  const { config } = parts;
  return new BullmqJobQueue(session.client, session.keys, session.guard, {
    attempts: config.jobAttempts,
    backoffMs: config.jobBackoffMs,
    policies: parts.policies,
    retentionSeconds: config.idempotencyTtlSeconds,
    logger: parts.logger,
    shards: config.jobQueueShards,
    durability: { minReplicas: config.redisMinReplicas ?? 0, waitMs: config.redisWaitMs ?? 0 },
  });
}

/** A backend's jobs side, from which its job service is made. */
export interface JobsSide {
  ledger: LedgerStore;
  queue: JobQueue;
  lifecycle: JobLifecycle;
  retentionSeconds: number;
  /** Claims and reads the claimed job in one step, where the backend can. */
  claimReader?: ClaimReader;
}

/** The factory a backend exposes as `jobService`: the domain adds its parts (keys, hooks, budget, views, billing). */
export function jobServiceOn(side: JobsSide): (parts: JobServiceParts) => JobService {
  return (parts) => new JobService({ ...parts, ...side });
}
