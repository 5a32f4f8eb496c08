import { AppError } from '../../platform/errors/app-error';
import { ServiceUnavailableError } from '../../platform/errors/problems';
import { withinGrace } from '../../platform/lifecycle/within-grace';

/** Seconds a caller is told to wait (`Retry-After`) when Redis is unavailable. */
export const REDIS_RETRY_AFTER_SECONDS = 5;

/**
 * Turns every failure of Redis work into a {@link ServiceUnavailableError} (503 with `Retry-After`), and bounds
 * the time the work may take. The original error travels as `cause`, so the error handler logs it with the
 * request id while the caller sees only a generic 503.
 *
 * Two kinds of work, two methods. {@link RedisGuard.commands}: commands on the request client, which fails
 * fast while disconnected and times out every command itself (`boundCommands`), so the guard only maps
 * errors. {@link RedisGuard.run}: work the client does not bound, such as BullMQ waiting for its first
 * connection, which also gets the guard's own deadline.
 */
export class RedisGuard {
  constructor(
    private readonly deadlineMs: number,
    private readonly onFailure: (error: unknown) => void = () => {},
  ) {}

  /**
   * Work made only of commands on the request client (each bounded by its command timeout). No timer and
   * no race of its own, which cost a replay measurable CPU (bench/README.md).
   */
  commands<T>(work: () => Promise<T>): Promise<T> {
    // A `catch` on the work's own promise rather than an async function awaiting it: one promise per call, not two.
    let attempt: Promise<T>;
    try {
      attempt = work();
    } catch (error) {
      return Promise.reject(this.failure(error));
    }
    return attempt.catch((error: unknown) => Promise.reject(this.failure(error)));
  }

  /** Work the client does not bound, raced against the guard's deadline. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const attempt = work();
    try {
      if (await withinGrace(attempt, this.deadlineMs)) return await attempt;
      throw new Error(`redis work took longer than ${this.deadlineMs} ms`);
    } catch (error) {
      throw this.failure(error);
    } finally {
      // A timed-out attempt may still settle later; its rejection must not become an unhandled one.
      attempt.catch(() => undefined);
    }
  }

  private failure(error: unknown): unknown {
    // Errors that already mean something to the HTTP layer (none today) pass through unchanged.
    if (error instanceof AppError) return error;
    this.onFailure(error);
    return unavailable(error);
  }
}

/** A 503 that carries what actually failed, for the log only. */
export function unavailable(cause: unknown): ServiceUnavailableError {
  const error = new ServiceUnavailableError(REDIS_RETRY_AFTER_SECONDS);
  Object.defineProperty(error, 'cause', { value: cause, enumerable: false, configurable: true, writable: true });
  return error;
}
