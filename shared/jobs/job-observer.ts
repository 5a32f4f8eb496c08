import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics';
import type { JobRecord } from './job';

/**
 * Logs and measures each job transition; both backends' runners report through this. A start and a success
 * are debug lines: at info they were a fifth of the worker's CPU per job (bench/README.md), and what operators
 * act on stays at warn (failures, retries, stalls) while the metrics count every outcome and its duration.
 */
export function jobObserver(metrics: Metrics, logger: Logger) {
  return (job: Pick<JobRecord, 'id' | 'operation' | 'status' | 'created_at' | 'started_at' | 'finished_at' | 'attempts' | 'error'>): void => {
    metrics.recordJobTransition(job);
    const fields = { job_id: job.id, operation: job.operation, attempt: job.attempts };
    if (job.status === 'running') logger.debug(fields, 'job started');
    else if (job.status === 'succeeded') logger.debug(fields, 'job succeeded');
    else if (job.status === 'failed') logger.warn({ ...fields, error: job.error?.message }, 'job failed');
  };
}
