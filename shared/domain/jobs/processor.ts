import type { Spec } from 'envalid';
import type * as z from 'zod';
import { checkEmission, type DeclaredEvents, type EventData, EventDeclarationError, MAX_EVENTS_PER_ATTEMPT } from './declared-events';
import { JobError } from './job-error';
import type { JobViews } from './job-views';
import { checkedPartial } from './partial-result';

/**
 * What a processor returns: a small JSON object, stored with the job. Any object type, so a result declared
 * as an `interface` is accepted (an interface has no index signature, so `Record<string, unknown>` refuses it).
 */
export type JobResult = object;

/** The events of a job that declares none: `emit` takes no type. */
export type NoEvents = Record<never, never>;

/**
 * What a processor learns about the attempt it runs, and how it talks back while it runs. `E` are its job's
 * declared events (`PaidJob.events`); `Part` is the type of its partial results (`PaidJob.partial`), and a job
 * that declares none cannot publish one.
 */
export interface ProcessorContext<E extends DeclaredEvents = DeclaredEvents, Part extends object = never> {
  readonly jobId: string;
  /** 1 for the first attempt. Processing is at-least-once: a processor must tolerate running again. */
  readonly attempt: number;
  /**
   * Reports how far the attempt has got: `percent` a whole number 0..100, `message` at most 200 characters
   * (shown to the person, so nothing secret). Writes are coalesced (a few per second per job at most) and
   * stored in the order reported; the call never waits for the store. Throws a `RangeError` on a bad value.
   */
  progress(percent: number, message?: string): void;
  /**
   * Publishes what the attempt has produced so far (replacing the last one), shown with the job while it runs
   * and delivered to MCP clients waiting on its task; the final result replaces it. Checked against the job's
   * `partial` schema and bounded to 16 KiB of JSON (a `PartialResultError` names the rule broken); stored as a
   * snapshot, coalesced with the progress reports, never waiting for the store. A retried attempt starts with none.
   */
  partial(value: Part): void;
  /** Fires when this attempt must stop: its operation's timeout passed or the job was canceled while it runs; a processor should stop and throw. */
  readonly signal: AbortSignal;
  /**
   * Sends one of the job's declared events (`PaidJob.events`) to the webhook receiver, signed and retried as
   * the connector's own. The type and data are checked against the declaration: an undeclared type does not
   * compile, and data outside its schema (or over 16 KiB, or a 1,001st event in one attempt) throws an
   * `EventDeclarationError` at once. Resolves once the event is recorded (the attempt's end waits for it
   * anyway). Its `webhook-id` is derived from the job, the type and how many of that type this attempt emitted
   * before, so an attempt run again that emits the same events in the same order sends nothing twice.
   */
  emit<K extends keyof E & string>(type: K, data: EventData<E, K>): Promise<void>;
}

/**
 * Does the work of one paid operation on its typed input. Throw `JobError` for a failure whose message may be
 * shown. (Declared through a method so that a list of jobs with different inputs is one type.)
 */
export type Processor<
  Input = Record<string, unknown>,
  Result extends JobResult = JobResult,
  E extends DeclaredEvents = DeclaredEvents,
  Part extends object = never,
> = {
  run(input: Input, context: ProcessorContext<E, Part>): Promise<Result>;
}['run'];

/** Processors by operation id; the worker dispatches on the job's operation. */
export type ProcessorMap = ReadonlyMap<string, Processor<Record<string, unknown>, JobResult, DeclaredEvents, object>>;

/**
 * What a cancel of a job that has started keeps of its price: `none` (all given back), `progress` (the price
 * times the last reported percent, rounded up; the default, so work done is never free) or `full`. A cancel
 * before the job starts always gives everything back.
 */
export const CANCEL_CHARGES = ['none', 'progress', 'full'] as const;
export type CancelCharge = (typeof CANCEL_CHARGES)[number];

/** The cancel charge of an operation that declares none. */
export const DEFAULT_CANCEL_CHARGE: CancelCharge = 'progress';

/** envalid specs of a paid job's own environment variables, by variable name. */
export type JobSettingSpecs = Readonly<Record<string, Spec<unknown>>>;

/** The values those specs read, typed by them. */
export type JobSettingValues<S extends JobSettingSpecs> = { readonly [K in keyof S]: S[K] extends Spec<infer T> ? T : never };

/**
 * The work behind one paid operation, apart from its REST contract: the worker needs only this, never the
 * routes or handlers. The operation that accepts the job names the same object (`Operation.job`). Its input
 * (and result) are declared once with zod: the operation publishes and enforces that schema, and the processor
 * is typed by it. Every setting but the processor is optional; an absent one falls back to the global
 * configuration.
 */
export interface PaidJob<
  Input = Record<string, unknown>,
  Result extends JobResult = JobResult,
  S extends JobSettingSpecs = JobSettingSpecs,
  E extends DeclaredEvents = DeclaredEvents,
  Part extends object = object,
> {
  /** The operationId of the operation whose jobs this processes. */
  readonly operationId: string;
  /** What a job takes: the `input` of the operation's body, as the processor receives it. */
  readonly input: z.ZodType<Input>;
  /** What a succeeded job holds as `result`: published with the job; a result outside it fails the job. */
  readonly result?: z.ZodType<Result>;
  /**
   * What its processor may publish while it runs (`context.partial`): a zod schema of an object, published
   * with the job (`Job.partial`); a partial result outside it, or over 16 KiB of JSON, is refused.
   */
  readonly partial?: z.ZodType<Part>;
  /**
   * An input that succeeds: what the tests (and a person trying the operation) call it with. Not every valid
   * input need succeed (a processor may fail with `JobError` on what only the work can tell), so the tests
   * that expect success use this one.
   */
  readonly example?: Input;
  /** An attempt running longer than this is stopped (its `signal` fires) and fails; none: no limit. */
  readonly timeoutMs?: number;
  /** Attempts in all, the first included (default: `JOB_ATTEMPTS`). */
  readonly attempts?: number;
  /** The first retry's delay, doubling after (default: `JOB_BACKOFF_MS`). */
  readonly backoffMs?: number;
  /** Whether a job that ends failed gives its credits back (default: true). */
  readonly refundOnFailure?: boolean;
  /**
   * What a cancel after the job started keeps of its price (default `progress`); published as
   * `x-cost.cancel_charge` and in the operation's description.
   */
  readonly cancelCharge?: CancelCharge;
  /** This job's own environment variables, validated at start; the processor receives their values. */
  readonly settings?: S;
  /**
   * How its jobs show their input and result when read (default: whole) and listed (default: a summary of
   * a few fields, so a page of 100 stays under 100,000 characters); each view publishes its schema.
   */
  readonly views?: JobViews<Input, Result>;
  /**
   * The events its processor may emit while it runs (`context.emit`), by type name: each a description and
   * a zod schema of its data. Sent like the connector's own events and listed in the catalogue.
   */
  readonly events?: E;
  /** Builds the processor once per process, from the values of its own settings. */
  processor(own: JobSettingValues<S>): Processor<Input, Result, E, Part>;
}

/** What {@link paidJob} is given: a job whose input and result types come from its schemas. */
export type PaidJobSpec<
  I extends z.ZodType,
  R extends z.ZodType<JobResult>,
  S extends JobSettingSpecs,
  E extends DeclaredEvents,
  P extends z.ZodType<object> = z.ZodType<never>,
> = Omit<PaidJob<z.output<I>, z.output<R>, S, E, z.output<P>>, 'input' | 'result' | 'partial'> & {
  readonly input: I;
  readonly result?: R;
  readonly partial?: P;
};

/**
 * Declares a paid job: the processor's input, result and partial results are typed by the `input`, `result`
 * and `partial` schemas (and its own settings by `settings`), so the job, its price rule and its operation
 * agree at compile time.
 */
export function paidJob<
  I extends z.ZodType,
  R extends z.ZodType<JobResult> = z.ZodType<JobResult>,
  S extends JobSettingSpecs = JobSettingSpecs,
  E extends DeclaredEvents = NoEvents,
  P extends z.ZodType<object> = z.ZodType<never>,
>(spec: PaidJobSpec<I, R, S, E, P>): PaidJob<z.output<I>, z.output<R>, S, E, z.output<P>> {
  return spec as PaidJob<z.output<I>, z.output<R>, S, E, z.output<P>>;
}

/** How the queue runs the jobs of one operation: the global settings overridden by the job's own. */
export interface JobPolicy {
  readonly attempts: number;
  readonly backoffMs: number;
  readonly timeoutMs: number | undefined;
  readonly refundOnFailure: boolean;
  /** What a cancel after the start keeps; absent: {@link DEFAULT_CANCEL_CHARGE}. */
  readonly cancelCharge?: CancelCharge;
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
    cancelCharge: job?.cancelCharge ?? DEFAULT_CANCEL_CHARGE,
  };
}

/**
 * The processors of the given paid jobs, by operation id. `own` holds each job's validated settings
 * ({@link loadJobSettings}); a job with none gets an empty object. A job that declares its result has each
 * result checked against it: one outside it fails the job (not retried) rather than publish what the schema denies.
 */
export function buildProcessors(jobs: readonly PaidJob[], own: ReadonlyMap<string, Record<string, unknown>> = new Map()): ProcessorMap {
  return new Map(jobs.map((job) => [job.operationId, checkedProcessor(job, job.processor((own.get(job.operationId) ?? {}) as never))]));
}

/** The message of a job whose processor answered a result its declaration does not allow. */
export const RESULT_OUTSIDE_SCHEMA = 'The job produced a result outside its declared schema.';

/** The processor with its events and partial results checked (schema and size) as sent, and its result as returned. */
function checkedProcessor(
  job: PaidJob,
  processor: Processor<Record<string, unknown>, JobResult, DeclaredEvents, object>,
): Processor<Record<string, unknown>, JobResult, DeclaredEvents, object> {
  const { result: schema, partial, operationId } = job;
  return async (input, context) => {
    const publish = context.partial;
    // Named field by field: one object shape for every job, cheaper per attempt than a spread copy.
    const result = await processor(input, {
      jobId: context.jobId,
      attempt: context.attempt,
      signal: context.signal,
      progress: context.progress,
      emit: checkedEmit(job, context.emit),
      partial: (value) => publish(checkedPartial(operationId, partial, value)),
    });
    if (schema && !schema.safeParse(result).success) throw new JobError(RESULT_OUTSIDE_SCHEMA, { retryable: false });
    return result;
  };
}

/**
 * The attempt's `emit`, held to the job's declarations: a mistake throws before anything is recorded, and
 * at most {@link MAX_EVENTS_PER_ATTEMPT} events leave one attempt.
 */
function checkedEmit(job: PaidJob, emit: ProcessorContext['emit']): ProcessorContext['emit'] {
  let emitted = 0;
  return (type, data) => {
    const emission = checkEmission(job.operationId, job.events, type, data);
    emitted += 1;
    if (emitted > MAX_EVENTS_PER_ATTEMPT) {
      throw new EventDeclarationError(`${job.operationId} emitted more than ${MAX_EVENTS_PER_ATTEMPT} events in one attempt`);
    }
    return emit(emission.type, emission.data);
  };
}
