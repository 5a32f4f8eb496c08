import type { Logger } from 'pino';
import type { Metrics } from '../../platform/metrics/metrics';
import type { JobRecord } from './job';

/** Which job an attempt belongs to; `attempt` is 1 for the first. */
export interface ObservedAttempt {
  readonly id: string;
  readonly operation: string;
  readonly attempt: number;
}

/**
 * Logs and measures job transitions. Times are milliseconds, as BullMQ keeps them, so that the worker's
 * success path formats and parses no dates. A start and a success are debug lines: at info they were a fifth
 * of the worker's CPU per job (bench/README.md); what operators act on stays at warn (failures, retries,
 * stalls) while the metrics count every outcome and its duration.
 */
export interface JobObserver {
  /** An attempt starts; `waitedMs` (accepted to first start) is given for a job's first attempt only. */
  started(job: ObservedAttempt, waitedMs?: number): void;
  /** The job reached its final state, `ranMs` after its first start; `error` is the safe message of a failure. */
  finished(job: ObservedAttempt, outcome: 'succeeded' | 'failed' | 'canceled', ranMs: number, error?: string): void;
  /** The job's credits were given back (exactly once per job). */
  refunded(job: ObservedAttempt, reason: 'canceled' | 'failed', credits: number): void;
}

/** The observer both backends report through. */
export function createJobObserver(metrics: Metrics, logger: Logger): JobObserver {
  return {
    refunded(job, reason, credits) {
      metrics.recordRefund(job.operation, reason, credits);
    },
    started(job, waitedMs) {
      if (waitedMs !== undefined) metrics.recordJobWait(job.operation, waitedMs);
      logger.debug({ job_id: job.id, operation: job.operation, attempt: job.attempt }, 'job started');
    },
    finished(job, outcome, ranMs, error) {
      metrics.recordJobEnd(job.operation, outcome, ranMs);
      if (outcome === 'succeeded') logger.debug({ job_id: job.id, operation: job.operation, attempt: job.attempt }, 'job succeeded');
      else if (outcome === 'canceled') logger.info({ job_id: job.id, operation: job.operation, attempt: job.attempt }, 'job canceled');
      else logger.warn({ job_id: job.id, operation: job.operation, attempt: job.attempt, error }, 'job failed');
    },
  };
}

/**
 * The in-memory queue's hook: it reports whole records (ISO times), and a record reaching `running` is an
 * attempt's start; `queued` (a retry's wait) is neither logged nor measured.
 */
export function jobObserver(
  metrics: Metrics,
  logger: Logger,
): (
  job: Pick<
    JobRecord,
    'id' | 'operation' | 'status' | 'created_at' | 'started_at' | 'finished_at' | 'attempts' | 'error' | 'refunded_credits'
  >,
) => void {
  const observer = createJobObserver(metrics, logger);
  return (job) => {
    const attempt = { id: job.id, operation: job.operation, attempt: job.attempts };
    const started = job.started_at === null ? NaN : Date.parse(job.started_at);
    if (job.status === 'running') observer.started(attempt, job.attempts === 1 ? started - Date.parse(job.created_at) : undefined);
    else if (job.status === 'succeeded' || job.status === 'failed') {
      const ranMs = job.finished_at === null ? NaN : Date.parse(job.finished_at) - started;
      observer.finished(attempt, job.status, ranMs, job.error?.message);
    } else if (job.status === 'canceled') {
      const ranMs = job.finished_at === null || job.started_at === null ? NaN : Date.parse(job.finished_at) - started;
      observer.finished(attempt, 'canceled', ranMs);
    }
    if ((job.status === 'canceled' || job.status === 'failed') && job.refunded_credits > 0) {
      observer.refunded(attempt, job.status, job.refunded_credits);
    }
  };
}
