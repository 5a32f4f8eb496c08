import { AppError } from './app-error';

/** 404: no such route, or no such resource for this subject (the two are indistinguishable on purpose). */
export class NotFoundError extends AppError {
  constructor(detail = 'Nothing is here.') {
    super(404, 'not-found', 'Not found', detail);
  }
}
