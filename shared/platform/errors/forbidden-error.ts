import { AppError } from './app-error';

/** 403: the request is understood but refused, e.g. a browser page from an origin that is not allowed. */
export class ForbiddenError extends AppError {
  constructor(detail: string) {
    super(403, 'forbidden', 'Forbidden', detail);
  }
}
