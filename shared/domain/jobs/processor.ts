/**
 * What a processor returns: a small JSON object, stored with the job. Any object type, so a result declared
 * as an `interface` is accepted (an interface has no index signature, so `Record<string, unknown>` refuses it).
 */
export type JobResult = object;

/** What a processor learns about the attempt it runs. */
export interface ProcessorContext {
  readonly jobId: string;
  /** 1 for the first attempt. Processing is at-least-once: a processor must tolerate running again. */
  readonly attempt: number;
}

/** Does the work of one paid operation. Throw `JobError` for a failure whose message may be shown. */
export type Processor<Result extends JobResult = Record<string, unknown>> = (
  input: Record<string, unknown>,
  context: ProcessorContext,
) => Promise<Result>;

/** Processors by operation id; the worker dispatches on the job's operation. */
export type ProcessorMap = ReadonlyMap<string, Processor<JobResult>>;

/** Settings a processor may need, from the configuration. */
export interface ProcessorSettings {
  placeholderJobMs: number;
}

/**
 * The work behind one paid operation, apart from its REST contract: the worker needs only this, never the
 * routes or handlers. The operation that accepts the job names the same object (`Operation.job`).
 */
export interface PaidJob {
  /** The operationId of the operation whose jobs this processes. */
  readonly operationId: string;
  /** Builds the processor once per process. */
  processor(settings: ProcessorSettings): Processor<JobResult>;
}

/** The processors of the given paid jobs, by operation id. */
export function buildProcessors(settings: ProcessorSettings, jobs: readonly PaidJob[]): ProcessorMap {
  return new Map(jobs.map((job) => [job.operationId, job.processor(settings)]));
}
