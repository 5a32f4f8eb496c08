/** What a processor learns about the attempt it runs. */
export interface ProcessorContext {
  readonly jobId: string;
  /** 1 for the first attempt. Processing is at-least-once: a processor must tolerate running again. */
  readonly attempt: number;
  /** Fires when the job is canceled while this attempt runs; a processor should stop and throw. */
  readonly signal: AbortSignal;
}

/** Does the work of one paid operation. Throw `JobError` for a failure whose message may be shown. */
export type Processor = (input: Record<string, unknown>, context: ProcessorContext) => Promise<Record<string, unknown>>;

/** Processors by operation id; the worker dispatches on the job's operation. */
export type ProcessorMap = ReadonlyMap<string, Processor>;

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
  /** Whether a job that ends `failed` gets its credits back; default true. */
  readonly refundOnFailure?: boolean;
  /** Builds the processor once per process. */
  processor(settings: ProcessorSettings): Processor;
}

/** Whether a failed job of `operation` is refunded: yes unless its paid job says `refundOnFailure: false`. */
export function refundsFailure(jobs: readonly PaidJob[], operation: string): boolean {
  return jobs.find((job) => job.operationId === operation)?.refundOnFailure !== false;
}

/** The processors of the given paid jobs, by operation id. */
export function buildProcessors(settings: ProcessorSettings, jobs: readonly PaidJob[]): ProcessorMap {
  return new Map(jobs.map((job) => [job.operationId, job.processor(settings)]));
}
