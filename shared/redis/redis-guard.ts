import { AppError } from '../errors/app-error';
import { ServiceUnavailableError } from '../errors/service-unavailable-error';

/** Seconds a caller is told to wait (`Retry-After`) when Redis is unavailable. */
export const REDIS_RETRY_AFTER_SECONDS = 5;

/**
 * Runs Redis work with a deadline and turns every failure into a {@link ServiceUnavailableError} (503 with
 * `Retry-After`). The client already fails fast while disconnected and times out silent commands; the
 * deadline is the backstop for waits the client does not bound, such as BullMQ waiting for its first
 * connection. The original error travels as `cause`, so the error handler logs it with the request id while
 * the caller sees only a generic 503.
 */
export class RedisGuard {
  constructor(
    private readonly deadlineMs: number,
    private readonly onFailure: (error: unknown) => void = () => {},
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`redis work took longer than ${this.deadlineMs} ms`)), this.deadlineMs);
    });
    const attempt = work();
    try {
      return await Promise.race([attempt, deadline]);
    } catch (error) {
      // Errors that already mean something to the HTTP layer (none today) pass through unchanged.
      if (error instanceof AppError) throw error;
      this.onFailure(error);
      throw unavailable(error);
    } finally {
      clearTimeout(timer);
      // A timed-out attempt may still settle later; its rejection must not become an unhandled one.
      attempt.catch(() => undefined);
    }
  }
}

/** A 503 that carries what actually failed, for the log only. */
export function unavailable(cause: unknown): ServiceUnavailableError {
  const error = new ServiceUnavailableError(REDIS_RETRY_AFTER_SECONDS);
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false, configurable: true, writable: true });
  return error;
}
