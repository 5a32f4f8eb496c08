import type { Logger } from 'pino';
import type { Metrics } from '../../platform/metrics/metrics';

/** Which job an attempt belongs to; `attempt` is 1 for the first. */
export interface ObservedAttempt {
  readonly id: string;
  readonly operation: string;
  readonly attempt: number;
}

/** How a job ended, as it is counted. */
export type FinalOutcome = 'succeeded' | 'failed' | 'canceled';

/**
 * Logs and measures job transitions, for both backends: the job lifecycle is its only caller. Times are
 * milliseconds, as BullMQ keeps them, so that the worker's success path formats and parses no dates. A start
 * and a success are debug lines: at info they were a fifth of the worker's CPU per job (bench/README.md); what
 * operators act on stays at warn (failures, retries, stalls) while the metrics count every outcome and its
 * duration.
 */
export interface JobObserver {
  /** An attempt starts; `waitedMs` (accepted to first start) is given for a job's first attempt only. */
  started(job: ObservedAttempt, waitedMs?: number): void;
  /** The job reached its final state, `ranMs` after its first start; `error` is the safe message of a failure. */
  finished(job: ObservedAttempt, outcome: FinalOutcome, ranMs: number, error?: string): void;
  /** The job's credits were given back (exactly once per job). */
  refunded(job: ObservedAttempt, reason: 'canceled' | 'failed', credits: number): void;
  /**
   * A job's hold was ended (prepaid billing, exactly once per job): `captured` kept, `released` given back to
   * the balance, for `reason` (none: a success or a failure that is not refunded).
   */
  holdSettled?(job: ObservedAttempt, captured: number, released: number, reason?: 'canceled' | 'failed'): void;
  /** An attempt failed and the job will be tried again; `error` is the safe message. */
  retrying(job: ObservedAttempt, error: string): void;
  /** A processor threw something other than a `JobError`: the cause, which the person never sees. */
  threw(job: ObservedAttempt, error: unknown): void;
  /** A job taken again after stalling `stalls` times, more than forgiven: it fails without running. */
  stalledTooOften(job: ObservedAttempt, stalls: number): void;
}

/** The observer on a process's metrics and logger. */
export function createJobObserver(metrics: Metrics, logger: Logger): JobObserver {
  const fields = (job: ObservedAttempt) => ({ job_id: job.id, operation: job.operation, attempt: job.attempt });
  return {
    refunded(job, reason, credits) {
      metrics.recordRefund(job.operation, reason, credits);
    },
    holdSettled(job, captured, released, reason) {
      metrics.recordHoldSettled(job.operation, captured, released, reason);
    },
    started(job, waitedMs) {
      if (waitedMs !== undefined) metrics.recordJobWait(job.operation, waitedMs);
      logger.debug(fields(job), 'job started');
    },
    finished(job, outcome, ranMs, error) {
      metrics.recordJobEnd(job.operation, outcome, ranMs);
      if (outcome === 'succeeded') logger.debug(fields(job), 'job succeeded');
      else if (outcome === 'canceled') logger.info(fields(job), 'job canceled');
      else logger.warn({ ...fields(job), error }, 'job failed');
    },
    retrying(job, error) {
      logger.warn({ ...fields(job), error }, 'job attempt failed; retrying');
    },
    threw(job, error) {
      logger.error({ err: error, ...fields(job) }, 'job attempt threw');
    },
    stalledTooOften(job, stalls) {
      logger.warn({ job_id: job.id, operation: job.operation, stalls }, 'job stalled too often; it fails');
    },
  };
}

/** An observer that records nothing: a queue built without one (tests of its mechanics). */
export const SILENT_OBSERVER: JobObserver = {
  started: () => {},
  finished: () => {},
  refunded: () => {},
  retrying: () => {},
  threw: () => {},
  stalledTooOften: () => {},
};
