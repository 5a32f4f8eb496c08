import { DEFAULT_BODY_LIMIT_BYTES } from '../../shared/contract/operations/body-limit';
import { AppError, type FieldProblem } from '../../shared/platform/errors/app-error';
import { InternalError, PayloadTooLargeError, UnsupportedMediaTypeError, ValidationError } from '../../shared/platform/errors/problems';

/** An RFC 9457 problem body. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  request_id: string;
  errors?: readonly FieldProblem[];
  [extension: string]: unknown;
}

interface FrameworkError {
  status?: number;
  statusCode?: number;
  type?: string;
  /** The body parser's limit, on its 413. */
  limit?: number;
  errors?: Array<{ path?: string; message?: string }>;
}

/**
 * Maps anything thrown into an {@link AppError}. Errors of the body parser and of the OpenAPI validator are
 * translated by status; their own messages are replaced, except validator field messages (schema facts).
 * Unknown routes and methods never get here as framework errors: the registry matcher answers them first.
 * Anything unknown becomes a 500 whose cause the caller logs.
 */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  const framework = (error ?? {}) as FrameworkError;
  const status = framework.status ?? framework.statusCode;
  if (framework.type === 'entity.parse.failed') return new ValidationError('The body is not valid JSON.');
  if (framework.type === 'entity.too.large' || status === 413) return new PayloadTooLargeError(framework.limit ?? DEFAULT_BODY_LIMIT_BYTES);
  if (framework.type === 'charset.unsupported' || framework.type === 'encoding.unsupported' || status === 415) {
    return new UnsupportedMediaTypeError();
  }
  if (status === 400 && Array.isArray(framework.errors)) {
    const errors = framework.errors.map((e) => ({ path: String(e.path ?? ''), message: String(e.message ?? 'is invalid') }));
    return new ValidationError('The request does not match the schema.', errors);
  }
  if (status === 400) return new ValidationError('The request is malformed.');
  return new InternalError();
}

/** The problem+json body of an error, for the request with this id. */
export function problemBody(error: AppError, requestId: string): Problem {
  // Extension members first, so that none can overwrite a standard member.
  const body: Problem = {
    ...error.extensions,
    type: error.type,
    title: error.title,
    status: error.status,
    detail: error.message,
    request_id: requestId,
  };
  if (error.errors && error.errors.length > 0) body.errors = error.errors;
  return body;
}
