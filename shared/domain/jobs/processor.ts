import type { Spec } from 'envalid';

/**
 * What a processor returns: a small JSON object, stored with the job. Any object type, so a result declared
 * as an `interface` is accepted (an interface has no index signature, so `Record<string, unknown>` refuses it).
 */
export type JobResult = object;

/** What a processor learns about the attempt it runs, and how it talks back while it runs. */
export interface ProcessorContext {
  readonly jobId: string;
  /** 1 for the first attempt. Processing is at-least-once: a processor must tolerate running again. */
  readonly attempt: number;
  /**
   * Reports how far the attempt has got: `percent` a whole number 0..100, `message` at most 200 characters
   * (shown to the person, so nothing secret). Writes are coalesced (a few per second per job at most) and
   * stored in the order reported; the call never waits for the store. Throws a `RangeError` on a bad value.
   */
  progress(percent: number, message?: string): void;
  /** Fires when this attempt must stop: its operation's timeout passed or the job was canceled while it runs; a processor should stop and throw. */
  readonly signal: AbortSignal;
}

/** Does the work of one paid operation. Throw `JobError` for a failure whose message may be shown. */
export type Processor<Result extends JobResult = Record<string, unknown>> = (
  input: Record<string, unknown>,
  context: ProcessorContext,
) => Promise<Result>;

/** Processors by operation id; the worker dispatches on the job's operation. */
export type ProcessorMap = ReadonlyMap<string, Processor<JobResult>>;

/** envalid specs of a paid job's own environment variables, by variable name. */
export type JobSettingSpecs = Readonly<Record<string, Spec<unknown>>>;

/** The values those specs read, typed by them. */
export type JobSettingValues<S extends JobSettingSpecs> = { readonly [K in keyof S]: S[K] extends Spec<infer T> ? T : never };

/**
 * The work behind one paid operation, apart from its REST contract: the worker needs only this, never the
 * routes or handlers. The operation that accepts the job names the same object (`Operation.job`). Every
 * setting but the processor is optional; an absent one falls back to the global configuration.
 */
export interface PaidJob<S extends JobSettingSpecs = JobSettingSpecs> {
  /** The operationId of the operation whose jobs this processes. */
  readonly operationId: string;
  /** An attempt running longer than this is stopped (its `signal` fires) and fails; none: no limit. */
  readonly timeoutMs?: number;
  /** Attempts in all, the first included (default: `JOB_ATTEMPTS`). */
  readonly attempts?: number;
  /** The first retry's delay, doubling after (default: `JOB_BACKOFF_MS`). */
  readonly backoffMs?: number;
  /** Whether a job that ends failed gives its credits back (default: true). */
  readonly refundOnFailure?: boolean;
  /** This job's own environment variables, validated at start; the processor receives their values. */
  readonly settings?: S;
  /** Builds the processor once per process, from the values of its own settings. */
  processor(own: JobSettingValues<S>): Processor<JobResult>;
}

/** How the queue runs the jobs of one operation: the global settings overridden by the job's own. */
export interface JobPolicy {
  readonly attempts: number;
  readonly backoffMs: number;
  readonly timeoutMs: number | undefined;
  readonly refundOnFailure: boolean;
}

/** The global fallbacks of {@link JobPolicy} (`JOB_ATTEMPTS`, `JOB_BACKOFF_MS`). */
export interface JobPolicyDefaults {
  readonly attempts: number;
  readonly backoffMs: number;
}

/** Policies by operation id. */
export type JobPolicies = ReadonlyMap<string, JobPolicy>;

/** The policy of each paid job; an operation missing from the map runs with the defaults. */
export function buildPolicies(jobs: readonly PaidJob[], defaults: JobPolicyDefaults): JobPolicies {
  return new Map(jobs.map((job) => [job.operationId, policyOf(job, defaults)]));
}

/** One job's policy. */
export function policyOf(job: PaidJob | undefined, defaults: JobPolicyDefaults): JobPolicy {
  return {
    attempts: job?.attempts ?? defaults.attempts,
    backoffMs: job?.backoffMs ?? defaults.backoffMs,
    timeoutMs: job?.timeoutMs,
    refundOnFailure: job?.refundOnFailure ?? true,
  };
}

/**
 * The processors of the given paid jobs, by operation id. `own` holds each job's validated settings
 * ({@link loadJobSettings}); a job with none gets an empty object.
 */
export function buildProcessors(jobs: readonly PaidJob[], own: ReadonlyMap<string, Record<string, unknown>> = new Map()): ProcessorMap {
  return new Map(jobs.map((job) => [job.operationId, job.processor((own.get(job.operationId) ?? {}) as never)]));
}
