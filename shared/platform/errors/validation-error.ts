import { AppError, type FieldProblem } from './app-error';

/** 400: the request does not match the published schema (or is otherwise malformed). */
export class ValidationError extends AppError {
  constructor(detail: string, errors: readonly FieldProblem[] = []) {
    super(400, 'validation', 'Invalid request', detail, { errors });
  }
}
