/*
 * A paid job's way, and the module of each step (all built by shared/adapters/compose-jobs.ts):
 * 1. request: a handler hands the submission to `JobService.submit` (job-service.ts).
 * 2. claim: `Idempotency.claim` (idempotency.ts) charges or holds the price once per key, in the ledger's
 *    atomic claim (redis-ledger-store.ts, memory-ledger-store.ts).
 * 3. queue: `JobQueue.enqueue` (job-queue.ts): shared/adapters/redis/bullmq-job-queue.ts or
 *    shared/adapters/memory/memory-job-queue.ts, which also schedules its attempts.
 * 4. attempt: worker/bullmq-attempt.ts (or the memory queue) hands the taken job to `JobLifecycle.attempt`
 *    here, which runs the processor through job-runner.ts and decides the ending.
 * 5. settlement: `JobLifecycle.end` writes the decision, settles the charge (job-settlement.ts), and only then
 *    marks the job; a cancel of a queued job is settled by `settleCanceled`.
 * 6. events: `job.<outcome>` is recorded through `JobEvents` (shared/domain/webhooks/job-events.ts) before the
 *    mark, and sent by worker/webhook-worker.ts.
 */

import { andThen, type Step, wrapFailure } from '../../platform/util/step';
import type { JobRecord } from './job';
import { JobError } from './job-error';
import { type FinalOutcome, type JobObserver, type ObservedAttempt, SILENT_OBSERVER } from './job-observer';
import { type AttemptOutcome, type EmittedEvent, GENERIC_JOB_FAILURE, runAttempt } from './job-runner';
import {
  type ChargedJob,
  DEFAULT_TERMS,
  type Ending,
  type JobMoney,
  NO_MONEY,
  type Settled,
  type Settlement,
  type SettlementTerms,
  settlementOf,
  type WorkDone,
} from './job-settlement';
import type { JobPolicies, ProcessorMap } from './processor';
import type { AttemptReport, JobProgress } from './progress-reporter';
import { UnfinishedEnding } from './unfinished-ending';

/** What was decided about a job before it was taken again: nothing, or how it must end without running. */
export type EarlierDecision = 'failed' | 'canceled' | undefined;

/** Stalls a job is forgiven (it runs again elsewhere); a job that stalls more often keeps killing workers and fails. */
export const MAX_STALLS = 1;

/** One job's end, as the lifecycle settles, records and marks it. */
export interface JobEnd {
  readonly job: ChargedJob;
  readonly ending: Ending;
  /** The attempt that ended it, as observations name it. */
  readonly attempt: ObservedAttempt;
  /** When the ending was decided (ms). */
  readonly endedAt: number;
  /** Since the job's first start; NaN when it never started. */
  readonly ranMs: number;
  /** The job's last progress report: what a settlement by progress reads. */
  readonly progress: JobProgress | null;
  /**
   * True when an attempt of the job ran and this ends it (a cancel then keeps what the operation's
   * `cancelCharge` says); false for a job ended in the queue, which gives everything back.
   */
  readonly ran: boolean;
}

/**
 * How a backend keeps a job's ending. On Redis each write is made before the next step, so that a worker
 * dying anywhere leaves the job to be taken again, which finds the decision and ends it the same way without
 * running it. On the embedded backend every step answers at once, so the whole ending is one synchronous step.
 */
export interface EndingStore<R> {
  /** Writes the decision where the job, taken again, finds it: before any money moves. */
  writeDecision?(end: JobEnd): Step<void>;
  /** Writes what the settlement moved where the job shows it: still before its event. */
  writeSettled?(end: JobEnd, settled: Settled): Step<void>;
  /** Marks the job ended (last: after its event); what it returns is what the caller's runner receives. */
  markEnded(end: JobEnd, settled: Settled): Step<R>;
}

/** A job a backend has taken to run one attempt of. */
export interface TakenJob {
  readonly job: ChargedJob & { readonly input: Record<string, unknown> };
  /** This attempt's number as the retry rule counts it: 1 for the first. */
  readonly attempt: number;
  /** Attempts started, this one included (more than `attempt` once the job has stalled): what observations name. */
  readonly attemptsStarted: number;
  /** Attempts in all, the first included. */
  readonly maxAttempts: number;
  /** When the job's first attempt started (ms). */
  readonly startedMs: number;
  /** Accepted to first start (ms), for a job's first attempt only. */
  readonly waitedMs?: number;
  /** Times the job stalled (its worker lost it) before this attempt. */
  readonly stalls: number;
  /** The safe message an earlier attempt's failure kept, if any. */
  readonly lastError?: string;
  /** The decision an earlier taking recorded (read on a job taken again only; none: nothing survives). */
  readonly earlier?: EarlierDecision;
  /** The job's last progress report when it was taken (an ending before any new report settles by it). */
  readonly lastReport: JobProgress | null;
  /**
   * The attempt's controller: its signal is the processor's. The backend fires it on a cancel asked while the
   * attempt runs (it watches for one from the job's taking to its end); the lifecycle fires it on the
   * operation's timeout.
   */
  readonly controller: AbortController;
}

/** What a backend supplies to run one attempt of a job it has taken, besides how it keeps the ending. */
export interface AttemptPorts<R> extends EndingStore<R> {
  /** Whether a cancel of the job has been asked (after an attempt that did not succeed). */
  cancelAsked(): Step<boolean>;
  /** Stores a progress report with the latest partial result (already coalesced and ordered). */
  saveProgress(report: AttemptReport): Promise<void>;
  /** Runs the attempt in the backend's frame (the worker: the attempt's span); `onReport` is told of each report. */
  frame?(attempt: (onReport: (report: JobProgress) => void) => Promise<AttemptOutcome>): Promise<AttemptOutcome>;
  /** Puts the job back to run again after a failed attempt, keeping its safe message. */
  retry(message: string): Step<R>;
}

/** Where a job's final event is recorded: `job.<outcome>`, whose id is the job's, so recording it again is a no-op. */
export interface JobEvents {
  /** False when no receiver is configured: nothing is recorded. */
  readonly enabled: boolean;
  record(outcome: FinalOutcome, jobId: string): Step<void>;
  /** Records an event a job's processor emitted (its declared events); absent: they are dropped. */
  announce?(job: ChargedJob, emitted: EmittedEvent): Promise<void>;
}

/** What the lifecycle of one process runs attempts with, settles charges with and records to. */
export interface JobLifecycleOptions {
  /** The processors of the jobs this process runs (none: it runs no attempts, only ends canceled jobs). */
  processors?: ProcessorMap;
  /** Each operation's timeout (its attempts and back-off travel with the job). */
  policies?: JobPolicies;
  /** Where charges are settled (none: nothing moves). */
  money?: JobMoney;
  /** Where final events are recorded (none: no events). */
  events?: JobEvents;
  /** Where starts, ends, retries, refunds and faults are logged and measured (none: nowhere). */
  observer?: JobObserver;
  /** Each operation's settlement terms (none: failures are refunded). */
  terms?: (operation: string) => SettlementTerms;
  /** Tests only: called right after a job's event is recorded, before the job is marked ended. */
  afterJobEvent?: () => void;
}

/**
 * The one life of a paid job, whatever the backend. An attempt of a job taken again whose end was decided
 * earlier (or that stalled too often) ends so without running; otherwise it runs and its outcome is decided:
 * succeeded, retry, failed, or canceled (a cancel asked while it ran wins over anything but a success). A job
 * that ends then has its decision written, its charge settled (captured or released), its event and
 * observations recorded, and only then is it marked ended. Nothing else settles or records a job's end: the
 * backends supply small ports ({@link AttemptPorts}, {@link EndingStore}) and this drives them.
 */
export class JobLifecycle {
  private readonly processors: ProcessorMap;
  private readonly money: JobMoney;
  private readonly events: JobEvents;
  private readonly observer: JobObserver;
  private readonly terms: (operation: string) => SettlementTerms;

  constructor(private readonly options: JobLifecycleOptions = {}) {
    this.processors = options.processors ?? new Map();
    this.money = options.money ?? NO_MONEY;
    this.events = options.events ?? NO_JOB_EVENTS;
    this.observer = options.observer ?? SILENT_OBSERVER;
    this.terms = options.terms ?? (() => DEFAULT_TERMS);
  }

  /**
   * Runs one attempt of `taken` to its end or its retry; resolves with what the ports' `markEnded` or
   * `retry` gave. Synchronous up to the processor's start where the ports answer at once: a cancel cannot come
   * between the job's taking and the watch on its controller.
   */
  async attempt<R>(taken: TakenJob, ports: AttemptPorts<R>): Promise<R> {
    const ending = this.decidedBeforeRun(taken);
    return ending ? this.end(this.endOf(taken, ending), ports) : this.run(taken, ports);
  }

  /**
   * Ends a job: decision, settlement, event, mark, in that order. A write before the event that fails comes
   * out as an {@link UnfinishedEnding}: the job must then be left to be taken again, never marked.
   */
  end<R>(end: JobEnd, store: EndingStore<R>): Step<R> {
    const settlement = this.settlementOf(end);
    return andThen(this.settleDurably(end, settlement, store), (settled) =>
      andThen(this.record(end, settlement, settled, true), () => store.markEnded(end, settled)),
    );
  }

  /**
   * Settles and records a job a queue's cancel has ended at once (it was queued): the queue's cancel is the
   * decision and the mark in one atomic step. A cancel repeated later comes here again and repairs a refund
   * or an event an interrupted call missed; the end is counted by the call that settled it. With `repair`
   * (a read found the job canceled and its settlement possibly lost to a crash), only a call that settled
   * it records it.
   */
  async settleCanceled(job: JobRecord, { repair = false }: { repair?: boolean } = {}): Promise<void> {
    const end = endOfRecord(job, { kind: 'canceled' });
    const settlement = this.settlementOf(end);
    const settled = await this.money.settle(end.job, settlement);
    if (settled.made || !repair) await this.record(end, settlement, settled, settled.made);
  }

  /** The ending of a job taken again after its end was decided, or after it stalled too often; none otherwise. */
  private decidedBeforeRun(taken: TakenJob): Ending | undefined {
    const decision = taken.attemptsStarted > 1 ? taken.earlier : undefined;
    if (decision === 'failed') return { kind: 'failed', message: taken.lastError ?? GENERIC_JOB_FAILURE };
    if (decision === 'canceled') return { kind: 'canceled' };
    if (taken.stalls <= MAX_STALLS) return undefined;
    this.observer.stalledTooOften(this.observed(taken), taken.stalls);
    return { kind: 'failed', message: GENERIC_JOB_FAILURE };
  }

  /** Runs the processor; the attempt's last report is followed here, so that its ending settles by it. */
  private async run<R>(taken: TakenJob, ports: AttemptPorts<R>): Promise<R> {
    this.observer.started(this.observed(taken), taken.waitedMs);
    let lastReport = taken.lastReport;
    const attempt = (onReport: (report: JobProgress) => void) =>
      runAttempt(this.processors, taken.job, {
        attempt: taken.attempt,
        policy: { attempts: taken.maxAttempts, timeoutMs: this.options.policies?.get(taken.job.operation)?.timeoutMs },
        controller: taken.controller,
        saveProgress: (report) => {
          lastReport = report;
          onReport(report);
          return ports.saveProgress(report);
        },
        onUnexpected: (error) => this.observer.threw(this.observed(taken, taken.attempt), error),
        announce: this.announcer(taken.job),
      });
    const outcome = await (ports.frame ? ports.frame(attempt) : attempt(() => {}));
    return this.conclude({ ...taken, lastReport }, outcome, ports);
  }

  /** Where the attempt's emitted events go: the event queue when a receiver is configured, else nowhere. */
  private announcer(job: ChargedJob): ((emitted: EmittedEvent) => Promise<void>) | undefined {
    const { events } = this;
    if (!events.enabled || !events.announce) return undefined;
    return (emitted) => events.announce!(job, emitted);
  }

  /**
   * Decides the attempt's outcome, then ends or retries the job: one synchronous step where the ports answer
   * at once. A cancel asked while it ran wins over anything but a success: the work was not delivered.
   */
  private conclude<R>(taken: TakenJob, outcome: AttemptOutcome, ports: AttemptPorts<R>): Step<R> {
    if (outcome.kind === 'succeeded') return this.end(this.endOf(taken, { kind: 'succeeded', result: outcome.result }), ports);
    return andThen(abortedByCancel(taken.controller) || ports.cancelAsked(), (canceled) => {
      if (canceled) return this.end(this.endOf(taken, { kind: 'canceled' }), ports);
      if (outcome.kind === 'failed') return this.end(this.endOf(taken, outcome), ports);
      this.observer.retrying(this.observed(taken, taken.attempt), outcome.message);
      return ports.retry(outcome.message);
    });
  }

  /** The writes before the event: the decision, the settlement, what the job shows of it. */
  private settleDurably<R>(end: JobEnd, settlement: Settlement, store: EndingStore<R>): Step<Settled> {
    return wrapFailure(
      () =>
        andThen(store.writeDecision?.(end), () =>
          andThen(this.money.settle(end.job, settlement), (settled) => andThen(store.writeSettled?.(end, settled), () => settled)),
        ),
      (error) => new UnfinishedEnding(error),
    );
  }

  /**
   * The event is recorded before the job is marked: a worker dying in between runs the ending again, which
   * records the same event (a no-op). A refund is counted where it was made: an ending run again finds it
   * made and counts nothing.
   */
  private record(end: JobEnd, settlement: Settlement, settled: Settled, counted: boolean): Step<void> {
    if (settled.made && settlement.reason) this.observer.refunded(end.attempt, settlement.reason, settled.released);
    if (settled.made && settled.hold) this.observer.holdSettled?.(end.attempt, settled.hold.captured, settled.released, settlement.reason);
    const recorded = this.events.enabled
      ? andThen(this.events.record(end.ending.kind, end.job.id), () => this.options.afterJobEvent?.())
      : undefined;
    return andThen(recorded, () => {
      if (counted) this.observer.finished(end.attempt, end.ending.kind, end.ranMs, errorOf(end.ending));
    });
  }

  private settlementOf(end: JobEnd): Settlement {
    return settlementOf(end.job, end.ending, this.terms(end.job.operation), workDone(end));
  }

  private endOf(taken: TakenJob, ending: Ending): JobEnd {
    const endedAt = Date.now();
    const ranMs = endedAt - taken.startedMs;
    return { job: taken.job, ending, attempt: this.observed(taken), endedAt, ranMs, progress: taken.lastReport, ran: true };
  }

  /** The attempt as observations name it: by the attempts started, or by `attempt` where the retry rule's count is meant. */
  private observed(taken: TakenJob, attempt = taken.attemptsStarted): ObservedAttempt {
    return { id: taken.job.id, operation: taken.job.operation, attempt };
  }
}

/** A connector without a webhook receiver. */
export const NO_JOB_EVENTS: JobEvents = { enabled: false, record: () => {} };

/** The end of a job known by its record (the embedded queue's, or one a queue's cancel answered with). */
export function endOfRecord(job: JobRecord, ending: Ending, endedAt: number = Date.now()): JobEnd {
  return {
    job,
    ending,
    attempt: { id: job.id, operation: job.operation, attempt: job.attempts },
    endedAt,
    ranMs: job.started_at === null ? Number.NaN : endedAt - Date.parse(job.started_at),
    progress: job.progress,
    ran: false,
  };
}

/**
 * How far the job had got: an ending from a running attempt at its last reported percent; a job ended in the
 * queue (never started, or waiting for a retry or a worker) as not started, so its cancel gives all back.
 */
function workDone(end: JobEnd): WorkDone {
  return { started: end.ran, percent: end.progress?.percent ?? 0 };
}

/** Whether the attempt's signal fired for a cancel: a timeout fires it too, with a `JobError` for its reason (a failed attempt). */
function abortedByCancel(controller: AbortController): boolean {
  return controller.signal.aborted && !(controller.signal.reason instanceof JobError);
}

function errorOf(ending: Ending): string | undefined {
  return ending.kind === 'failed' ? ending.message : undefined;
}
