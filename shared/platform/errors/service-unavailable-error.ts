import { AppError } from './app-error';

/** 503: a backend the request needs is unreachable; the caller should retry after `Retry-After`. */
export class ServiceUnavailableError extends AppError {
  constructor(retryAfterSeconds = 5) {
    super(503, 'unavailable', 'Service unavailable', 'The service is temporarily unavailable. Retry shortly.', {
      headers: { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}
