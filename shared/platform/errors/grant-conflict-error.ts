import { AppError } from './app-error';

/** 422: a grant id already used with another body (another subject, amount or note). Nothing was added. */
export class GrantConflictError extends AppError {
  constructor() {
    super(
      422,
      'grant-conflict',
      'Grant id reused',
      'This grant_id was already used for a grant with another subject, amount or note; nothing was added. Use a new grant_id for a new grant.',
    );
  }
}
