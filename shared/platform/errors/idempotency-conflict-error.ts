import { AppError } from './app-error';

/** 422: an idempotency key reused with a different payload. */
export class IdempotencyConflictError extends AppError {
  constructor() {
    super(
      422,
      'idempotency-conflict',
      'Idempotency key reused',
      'This idempotency key was already used with a different request. Use a new key for a new request.',
    );
  }
}
