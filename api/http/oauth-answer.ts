import type { NextFunction, Request, Response } from 'express';
import { OAuthProtocolError } from '../../shared/domain/oauth/oauth-protocol-error';
import { AppError } from '../../shared/platform/errors/app-error';

/**
 * Writes an error of the OAuth endpoints as RFC 6749 JSON. Errors of the service (429, a Redis 503) keep
 * their status and headers but speak OAuth too; anything unexpected goes on to the error middleware, which
 * logs it and answers a generic 500.
 */
export function oauthErrorHandler(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(error);
  let answer: OAuthProtocolError | undefined;
  if (error instanceof OAuthProtocolError) answer = error;
  else if (error instanceof AppError && error.status < 500 && error.status !== 429) {
    answer = new OAuthProtocolError('invalid_request', error.message, error.status, error.headers as Record<string, string>);
  } else if (error instanceof AppError && (error.status === 429 || error.status === 503)) {
    answer = new OAuthProtocolError('temporarily_unavailable', error.message, error.status, error.headers as Record<string, string>);
  } else if (isBodyParserError(error)) {
    answer = new OAuthProtocolError('invalid_request', 'the request body could not be read', error.status === 413 ? 413 : 400);
  }
  if (!answer) return next(error);
  res
    .status(answer.status)
    .set(answer.headers)
    .set('Cache-Control', 'no-store')
    .json({ error: answer.error, error_description: answer.description });
}

function isBodyParserError(error: unknown): error is { status: number } {
  return typeof error === 'object' && error !== null && typeof (error as { status?: unknown }).status === 'number' && 'type' in error;
}
