import type { JobRecord, JobStatus, NewJob } from '../../domain/jobs/job';
import { isTerminal, queuedRecord } from '../../domain/jobs/job';
import type { CancelOutcome, JobQueue } from '../../domain/jobs/job-queue';
import { backoffDelay, runAttempt } from '../../domain/jobs/job-runner';
import { policyOf, type JobPolicies, type ProcessorMap } from '../../domain/jobs/processor';

/** How the in-process queue runs jobs. */
export interface MemoryQueueOptions {
  processors: ProcessorMap;
  concurrency: number;
  /** The global attempts and back-off, for an operation without a policy of its own. */
  attempts: number;
  backoffMs: number;
  /** Each operation's attempts, back-off and timeout (`PaidJob`). */
  policies?: JobPolicies;
  /** Finished jobs are kept this long (the idempotency retention). */
  retentionMs: number;
  onUnexpectedError?: (error: unknown, job: JobRecord) => void;
  /** Called when a job reaches a terminal state or starts; metrics hook here. */
  onTransition?: (job: JobRecord) => void;
  /**
   * Gives the job's credits back, synchronously, so the refund is part of the step that ends the job; true
   * when this call refunded. None: nothing is refunded.
   */
  refund?: (job: JobRecord) => boolean;
  /** Whether a failed job of this operation is refunded; default yes. */
  refundOnFailure?: (operation: string) => boolean;
}

/** Runs jobs in this process: the embedded default. State is lost on exit. */
export class MemoryJobQueue implements JobQueue {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly waiting: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idle = new Set<() => void>();
  /** The abort controller of each running attempt, by job id: a cancel fires it. */
  private readonly controllers = new Map<string, AbortController>();
  private running = 0;
  private closing = false;

  constructor(private readonly options: MemoryQueueOptions) {}

  async enqueue(job: NewJob, { replaceFinished = false }: { replaceFinished?: boolean } = {}): Promise<JobRecord | undefined> {
    const existing = this.jobs.get(job.id);
    if ((existing && !(replaceFinished && isTerminal(existing.status))) || this.closing) return this.get(job.id);
    this.jobs.set(job.id, queuedRecord(job));
    this.waiting.push(job.id);
    this.pump();
    return this.get(job.id);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const job = this.jobs.get(id);
    return job ? structuredClone(job) : undefined;
  }

  /** No await between the read and the change: nothing can take the job in between. */
  async cancel(id: string): Promise<{ outcome: CancelOutcome; job: JobRecord } | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    let outcome: CancelOutcome;
    if (job.status === 'canceled') outcome = 'already_canceled';
    else if (job.status === 'succeeded' || job.status === 'failed') outcome = 'finished';
    else if (job.status === 'queued') {
      // Queued, or waiting for a retry: the pump skips a job that is no longer queued.
      job.cancel_requested_at = new Date().toISOString();
      this.finish(job, 'canceled');
      outcome = 'canceled';
    } else {
      job.cancel_requested_at ??= new Date().toISOString();
      this.controllers.get(id)?.abort();
      outcome = 'requested';
    }
    return { outcome, job: structuredClone(job) };
  }

  shardFor(): number {
    return 0;
  }

  /** Nothing here outlives the process, so there is nothing more to wait for. */
  async confirmDurable(): Promise<void> {}

  async counts(): Promise<Record<JobStatus, number>> {
    const counts: Record<JobStatus, number> = { queued: 0, running: 0, succeeded: 0, failed: 0, canceled: 0 };
    for (const job of this.jobs.values()) counts[job.status]++;
    return counts;
  }

  /** Whether a job is still kept; the ledger prunes its index with this. */
  has(id: string): boolean {
    return this.jobs.has(id);
  }

  /** Drops finished jobs older than the retention. */
  sweep(now = Date.now()): void {
    for (const [id, job] of this.jobs) {
      if (isTerminal(job.status) && job.finished_at && Date.parse(job.finished_at) + this.options.retentionMs <= now) {
        this.jobs.delete(id);
      }
    }
  }

  async close(graceMs: number): Promise<void> {
    this.closing = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.running === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, graceMs);
      this.idle.add(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private pump(): void {
    while (!this.closing && this.running < this.options.concurrency && this.waiting.length > 0) {
      const job = this.jobs.get(this.waiting.shift()!);
      if (job?.status === 'queued') void this.attempt(job);
    }
  }

  private async attempt(job: JobRecord): Promise<void> {
    this.running++;
    job.status = 'running';
    job.attempts++;
    job.started_at ??= new Date().toISOString();
    this.options.onTransition?.(job);
    const policy = this.options.policies?.get(job.operation) ?? policyOf(undefined, this.options);
    // One controller per attempt: its signal is the processor's, fired on the operation's timeout or a cancel.
    const controller = new AbortController();
    this.controllers.set(job.id, controller);
    const outcome = await runAttempt(this.options.processors, job, {
      attempt: job.attempts,
      policy,
      controller,
      // The record is this queue's own, so a report is stored by assigning it.
      saveProgress: async (progress) => {
        job.progress = progress;
      },
      onUnexpected: (error) => this.options.onUnexpectedError?.(error, job),
    });
    this.controllers.delete(job.id);
    this.running--;
    // A cancel asked while it ran wins over anything but a success: the work was not delivered.
    if (outcome.kind !== 'succeeded' && job.cancel_requested_at !== null) this.finish(job, 'canceled');
    else if (outcome.kind === 'retry') {
      job.status = 'queued';
      const timer = setTimeout(
        () => {
          this.timers.delete(timer);
          this.waiting.push(job.id);
          this.pump();
        },
        backoffDelay(policy.backoffMs, job.attempts),
      );
      this.timers.add(timer);
    } else {
      if (outcome.kind === 'succeeded') job.result = outcome.result;
      else job.error = { message: outcome.message };
      this.finish(job, outcome.kind);
    }
    if (this.running === 0) for (const resolve of this.idle) resolve();
    this.pump();
  }

  /** Makes the job terminal and, when it is owed one, refunds it in the same synchronous step. */
  private finish(job: JobRecord, status: 'succeeded' | 'failed' | 'canceled'): void {
    job.status = status;
    job.finished_at = new Date().toISOString();
    const owed = status === 'canceled' || (status === 'failed' && (this.options.refundOnFailure?.(job.operation) ?? true));
    if (owed && job.cost > 0 && this.options.refund?.(job)) job.refunded_credits = job.cost;
    this.options.onTransition?.(job);
  }
}
