import type { Logger } from 'pino';
import type { Metrics } from '../metrics/metrics';
import type { JobRecord } from './job';

/**
 * Logs and measures each job transition; both backends' runners report through this. A start is logged at
 * debug: at info every job would cost two log lines, and its end line (or the stall warning) carries what
 * operators act on (bench/README.md).
 */
export function jobObserver(metrics: Metrics, logger: Logger) {
  return (job: Pick<JobRecord, 'id' | 'operation' | 'status' | 'created_at' | 'started_at' | 'finished_at' | 'attempts' | 'error'>): void => {
    metrics.recordJobTransition(job);
    const fields = { job_id: job.id, operation: job.operation, attempt: job.attempts };
    if (job.status === 'running') logger.debug(fields, 'job started');
    else if (job.status === 'succeeded') logger.info(fields, 'job succeeded');
    else if (job.status === 'failed') logger.warn({ ...fields, error: job.error?.message }, 'job failed');
  };
}
