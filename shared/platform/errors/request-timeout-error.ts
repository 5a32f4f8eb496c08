import { AppError } from './app-error';

/** 408: the client did not finish sending its request in time. */
export class RequestTimeoutError extends AppError {
  constructor() {
    super(408, 'request-timeout', 'Request timeout', 'The request was not received in time.');
  }
}
