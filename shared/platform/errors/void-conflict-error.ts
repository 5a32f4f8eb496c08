import { AppError } from './app-error';

/** 422: a void id already used with another body (another subject, grant or note). Nothing was voided. */
export class VoidConflictError extends AppError {
  constructor() {
    super(
      422,
      'void-conflict',
      'Void id reused',
      'This void_id was already used for a void of another subject, grant or note; nothing was voided. Use a new void_id for a new void.',
    );
  }
}
