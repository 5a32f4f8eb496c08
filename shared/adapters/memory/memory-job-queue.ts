import type { JobRecord, JobStatus, NewJob } from '../../domain/jobs/job';
import { isTerminal, queuedRecord } from '../../domain/jobs/job';
import type { JobQueue } from '../../domain/jobs/job-queue';
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
}

/** Runs jobs in this process: the embedded default. State is lost on exit. */
export class MemoryJobQueue implements JobQueue {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly waiting: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idle = new Set<() => void>();
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

  shardFor(): number {
    return 0;
  }

  /** Nothing here outlives the process, so there is nothing more to wait for. */
  async confirmDurable(): Promise<void> {}

  async counts(): Promise<Record<JobStatus, number>> {
    const counts: Record<JobStatus, number> = { queued: 0, running: 0, succeeded: 0, failed: 0 };
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
      if (job) void this.attempt(job);
    }
  }

  private async attempt(job: JobRecord): Promise<void> {
    this.running++;
    job.status = 'running';
    job.attempts++;
    job.started_at ??= new Date().toISOString();
    this.options.onTransition?.(job);
    const policy = this.options.policies?.get(job.operation) ?? policyOf(undefined, this.options);
    // One controller per attempt: its signal is the processor's, fired on the operation's timeout.
    const controller = new AbortController();
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
    this.running--;
    if (outcome.kind === 'retry') {
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
      job.status = outcome.kind;
      job.finished_at = new Date().toISOString();
      if (outcome.kind === 'succeeded') job.result = outcome.result;
      else job.error = { message: outcome.message };
      this.options.onTransition?.(job);
    }
    if (this.running === 0) for (const resolve of this.idle) resolve();
    this.pump();
  }
}
