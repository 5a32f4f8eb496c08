/**
 * Thrown by a job processor to fail an attempt with a message that is safe to show to the person.
 * Anything else a processor throws is reported as a generic failure, so internals never leak into a job.
 */
export class JobError extends Error {
  /** When false, the job fails at once instead of being retried. */
  readonly retryable: boolean;

  constructor(safeMessage: string, { retryable = true }: { retryable?: boolean } = {}) {
    super(safeMessage);
    this.name = 'JobError';
    this.retryable = retryable;
  }
}
