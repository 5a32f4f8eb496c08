/** What a processor learns about the attempt it runs. */
export interface ProcessorContext {
  readonly jobId: string;
  /** 1 for the first attempt. Processing is at-least-once: a processor must tolerate running again. */
  readonly attempt: number;
}

/** Does the work of one paid operation. Throw `JobError` for a failure whose message may be shown. */
export type Processor = (input: Record<string, unknown>, context: ProcessorContext) => Promise<Record<string, unknown>>;

/** Processors by operation id; the worker dispatches on the job's operation. */
export type ProcessorMap = ReadonlyMap<string, Processor>;
