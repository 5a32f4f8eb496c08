import type { JobRecord, JobStatus, NewJob } from '../../domain/jobs/job';
import { isTerminal, queuedRecord } from '../../domain/jobs/job';
import { type AttemptPorts, type EndingStore, endOfRecord, type JobLifecycle, type TakenJob } from '../../domain/jobs/job-lifecycle';
import type { CancelOutcome, JobQueue } from '../../domain/jobs/job-queue';
import { backoffDelay } from '../../domain/jobs/job-runner';
import { splitReport } from '../../domain/jobs/partial-result';
import { type JobPolicies, type JobPolicy, policyOf } from '../../domain/jobs/processor';
import { withinGrace } from '../../platform/lifecycle/within-grace';

/** How the in-process queue runs jobs. */
export interface MemoryQueueOptions {
  /**
   * What runs, settles, records and observes each job (its processors among them). The embedded stores
   * settle at once, so a job's whole ending is one step (compose-jobs.ts builds it so).
   */
  lifecycle: JobLifecycle;
  concurrency: number;
  /** The global attempts and back-off, for an operation without a policy of its own. */
  attempts: number;
  backoffMs: number;
  /** Each operation's attempts, back-off and timeout (`PaidJob`). */
  policies?: JobPolicies;
  /** Finished jobs are kept this long (the idempotency retention). */
  retentionMs: number;
}

/** Runs jobs in this process: the embedded default. State is lost on exit. */
export class MemoryJobQueue implements JobQueue {
  private readonly jobs = new Map<string, JobRecord>();
  private readonly waiting: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idle = new Set<() => void>();
  /** The abort controller of each running attempt, by job id: a cancel fires it. */
  private readonly controllers = new Map<string, AbortController>();
  /** Each job's first start (ms), for its run time across retries; the record shows the attempt it is on. */
  private readonly firstStarts = new WeakMap<JobRecord, number>();
  /** The lifecycle this queue runs and ends its jobs with. */
  readonly lifecycle: JobLifecycle;
  private running = 0;
  private closing = false;

  constructor(private readonly options: MemoryQueueOptions) {
    this.lifecycle = options.lifecycle;
  }

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
    return job ? snapshotOf(job) : undefined;
  }

  /** No await between the read and the change: nothing can take the job in between. */
  async cancel(id: string): Promise<{ outcome: CancelOutcome; job: JobRecord } | undefined> {
    const job = this.jobs.get(id);
    if (!job) return undefined;
    return { outcome: this.cancelNow(job), job: snapshotOf(job) };
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
    await withinGrace(new Promise<void>((resolve) => this.idle.add(resolve)), graceMs);
  }

  /** A queued job (or one waiting for a retry: the pump skips a job no longer queued) ends canceled at once; a running one is signaled. */
  private cancelNow(job: JobRecord): CancelOutcome {
    if (job.status === 'canceled') return 'already_canceled';
    if (job.status === 'succeeded' || job.status === 'failed') return 'finished';
    if (job.status === 'queued') {
      job.cancel_requested_at = new Date().toISOString();
      void this.lifecycle.end(endOfRecord(job, { kind: 'canceled' }), endOnRecord(job));
      return 'canceled';
    }
    job.cancel_requested_at ??= new Date().toISOString();
    this.controllers.get(job.id)?.abort();
    return 'requested';
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
    const now = Date.now();
    job.started_at = new Date(now).toISOString();
    if (!this.firstStarts.has(job)) this.firstStarts.set(job, now);
    const policy = this.options.policies?.get(job.operation) ?? policyOf(undefined, this.options);
    // One controller per attempt, which a cancel of the running job fires.
    const controller = new AbortController();
    this.controllers.set(job.id, controller);
    try {
      await this.lifecycle.attempt(taken(job, { policy, controller, startedMs: this.firstStarts.get(job)! }), this.portsFor(job, policy));
    } finally {
      this.controllers.delete(job.id);
      this.running--;
    }
    if (this.running === 0) for (const resolve of this.idle) resolve();
    this.pump();
  }

  /** The lifecycle's ports on a record this queue owns: each answers at once. */
  private portsFor(job: JobRecord, policy: JobPolicy): AttemptPorts<void> {
    return {
      ...endOnRecord(job),
      cancelAsked: () => job.cancel_requested_at !== null,
      // The record is this queue's own, so a report is stored by assigning it; its partial result shows apart.
      saveProgress: async (report) => {
        ({ progress: job.progress, partial: job.partial } = splitReport(report));
      },
      retry: () => this.retryLater(job, policy.backoffMs),
    };
  }

  private retryLater(job: JobRecord, backoffMs: number): void {
    job.status = 'queued';
    // The next attempt starts over, and a cancel meanwhile gives everything back: the job shows that attempt,
    // not yet started (docs/decisions/job-shows-its-attempt.md).
    job.started_at = null;
    job.progress = null;
    job.partial = null;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        this.waiting.push(job.id);
        this.pump();
      },
      backoffDelay(backoffMs, job.attempts),
    );
    this.timers.add(timer);
  }
}

/**
 * A record as it stands, for a caller to keep: later changes of the job do not reach it. The queue changes a
 * record only by replacing its fields (status, progress, result…), never by changing what a field holds, so
 * a copy of the fields is enough; a deep copy (`structuredClone`) was 3.4 % of a fresh paid job's CPU on the
 * embedded backend (bench/README.md).
 */
function snapshotOf(job: JobRecord): JobRecord {
  return { ...job };
}

/**
 * How the queue keeps a job's ending: on the record it owns, by assignment. Nothing here outlives the process,
 * so there is no decision to write ahead: the whole ending (settlement, event, mark) is one synchronous step,
 * and no request sees a job refunded and not ended, or ended and not refunded.
 */
function endOnRecord(job: JobRecord): EndingStore<void> {
  return {
    markEnded(end, settled) {
      job.status = end.ending.kind;
      job.finished_at = new Date(end.endedAt).toISOString();
      // The result (or the error) replaces what the job had published while it ran.
      job.partial = null;
      if (end.ending.kind === 'succeeded') job.result = end.ending.result;
      else if (end.ending.kind === 'failed') job.error = { message: end.ending.message };
      if (settled.released > 0) job.refunded_credits = settled.released;
    },
  };
}

/** A record taken for an attempt, as the lifecycle reads it; `startedMs` its first start. */
function taken(job: JobRecord, attempt: { policy: JobPolicy; controller: AbortController; startedMs: number }): TakenJob {
  const { policy, controller, startedMs } = attempt;
  return {
    job,
    attempt: job.attempts,
    attemptsStarted: job.attempts,
    maxAttempts: policy.attempts,
    startedMs,
    waitedMs: job.attempts === 1 ? startedMs - Date.parse(job.created_at) : undefined,
    stalls: 0,
    lastReport: job.progress,
    controller,
  };
}
