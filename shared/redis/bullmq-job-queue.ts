import { Queue, type JobsOptions } from 'bullmq';
import type Redis from 'ioredis';
import type { Logger } from 'pino';
import type { JobRecord, JobStatus, NewJob } from '../jobs/job';
import type { JobQueue } from '../jobs/job-queue';
import { toBullJobData, toJobRecord, type BullJobData } from './bullmq-job-record';
import type { RedisGuard } from './redis-guard';
import type { RedisKeys } from './redis-keys';
import { JOB_QUEUE_NAME } from './redis-keys';

/** How jobs are retried and how long finished ones are kept. */
export interface BullmqJobQueueOptions {
  attempts: number;
  backoffMs: number;
  /** Finished jobs are kept at least this long: the idempotency retention, so a replay finds its job. */
  retentionSeconds: number;
  logger: Logger;
}

/**
 * The producer side of the BullMQ queue, as the API uses it: it adds and reads jobs, and never runs them
 * (the worker process does). Job ids are the connector's own (`job_…`, derived from subject and key), so
 * BullMQ itself refuses a second job for the same key.
 */
export class BullmqJobQueue implements JobQueue {
  private readonly queue: Queue<BullJobData, Record<string, unknown>, string>;
  private readonly jobOptions: JobsOptions;

  constructor(
    client: Redis,
    keys: RedisKeys,
    private readonly guard: RedisGuard,
    options: BullmqJobQueueOptions,
  ) {
    // The client is shared with the stores: it fails fast while Redis is away, which is what a request wants.
    this.queue = new Queue(JOB_QUEUE_NAME, { connection: client, prefix: keys.bullPrefix });
    // Without a listener an 'error' event would crash the process; the client's own listener already
    // counts and logs connection errors, so only other errors are logged here.
    this.queue.on('error', (error: Error) => {
      if (!/ECONNREFUSED|ECONNRESET|Connection is closed|Stream isn't writeable|ETIMEDOUT/.test(error.message)) {
        options.logger.warn({ err: error }, 'job queue error');
      }
    });
    this.jobOptions = {
      attempts: options.attempts,
      backoff: { type: 'exponential', delay: options.backoffMs },
      removeOnComplete: { age: options.retentionSeconds },
      removeOnFail: { age: options.retentionSeconds },
    };
  }

  /**
   * Adds the job. When a job with this id exists BullMQ keeps the stored one and resolves to an object
   * holding *our* data, not the stored data, so the result is ignored: callers read the job with `get`.
   */
  async enqueue(job: NewJob): Promise<void> {
    await this.guard.run(() => this.queue.add(job.operation, toBullJobData(job), { ...this.jobOptions, jobId: job.id }));
  }

  async get(id: string): Promise<JobRecord | undefined> {
    return this.guard.run(async () => {
      // State first: a job seen as finished in its state is already complete in its hash (BullMQ writes both
      // in one script), so the record read next is never less finished than the state says.
      const state = await this.queue.getJobState(id);
      if (state === 'unknown') return undefined;
      return toJobRecord(await this.queue.getJob(id), state);
    });
  }

  async counts(): Promise<Record<JobStatus, number>> {
    const counts = await this.guard.run(() =>
      this.queue.getJobCounts('waiting', 'delayed', 'prioritized', 'waiting-children', 'active', 'completed', 'failed'),
    );
    const n = (state: string): number => Number(counts[state] ?? 0);
    return {
      queued: n('waiting') + n('delayed') + n('prioritized') + n('waiting-children'),
      running: n('active'),
      succeeded: n('completed'),
      failed: n('failed'),
    };
  }

  /** The API runs no jobs, so there is nothing to drain: release the queue (the shared client stays open). */
  async close(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.queue.close().catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))]);
    clearTimeout(timer);
  }
}
