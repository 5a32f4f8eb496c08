import { AppError } from './app-error';

/** 429: too many requests; `Retry-After` says when to try again. */
export class RateLimitedError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(429, 'rate-limited', 'Too many requests', `Too many requests. Retry after ${retryAfterSeconds} seconds.`, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}
