import type { JobRecord, JobStatus, NewJob } from './job';

/**
 * What a cancel request did. `canceled`: the job was queued and is now canceled and refunded (it will never
 * start). `requested`: it is running; its processor's signal fires and it ends canceled, or succeeded if it
 * finished first. `already_canceled`: nothing changed. `finished`: it had succeeded or failed; nothing changed.
 */
export type CancelOutcome = 'canceled' | 'requested' | 'already_canceled' | 'finished';

/** How {@link JobQueue.enqueue} adds a job. */
export interface EnqueueOptions {
  /**
   * Replace a *finished* job holding the id: it is left over from an idempotency key whose record has expired
   * (finished jobs are removed lazily, a little after the retention), and the new claim has just charged for a
   * new job, so the person must get one.
   */
  replaceFinished?: boolean;
  /** Where the job goes ({@link JobQueue.shardFor} by default; a replay passes the one its claim recorded). */
  shard?: number;
  /**
   * A read of the id on that shard, issued with the key's claim, found no job: no older job can hold the id
   * (the only other `add` of it is a replay of the same claim adding the same job), so the queue may answer
   * with the job it adds without reading it back.
   */
  absent?: boolean;
}

/**
 * The seam between the API and whatever runs jobs: in memory (in-process) or BullMQ (a separate worker).
 * Routes never know which one they talk to.
 */
export interface JobQueue {
  /**
   * Adds the job unless a job with its id already exists; never creates a second one ({@link EnqueueOptions}
   * says when a finished one is replaced). Resolves with the stored job when the queue knows it without
   * another read (the caller then need not `get` it), otherwise undefined.
   */
  enqueue(job: NewJob, options?: EnqueueOptions): Promise<JobRecord | undefined>;
  /** The stored job, or undefined; looked for on `shard` only when given, else wherever it may be. */
  get(id: string, shard?: number): Promise<JobRecord | undefined>;
  /** The shard a new job with this id goes to (always 0 for a queue without shards). */
  shardFor(jobId: string): number;
  /**
   * Resolves once a job accepted on `shard` and the subject's charge for it are as durable as configured
   * (on Redis: confirmed by `REDIS_MIN_REPLICAS` replicas); rejects with a 503 otherwise.
   */
  confirmDurable(subject: string, shard: number): Promise<void>;
  /**
   * Cancels the job (see {@link CancelOutcome}); undefined when there is no such job. A queued job's move to
   * `canceled` and its refund are one step, atomic against any worker taking the job.
   */
  cancel(id: string): Promise<{ outcome: CancelOutcome; job: JobRecord } | undefined>;
  /** Number of jobs in each state, for metrics. */
  counts(): Promise<Record<JobStatus, number>>;
  /** Resolves when in-flight work is finished (or the grace period is over); takes no new work. */
  close(graceMs: number): Promise<void>;
}
