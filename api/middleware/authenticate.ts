import type { NextFunction, Request, Response } from 'express';
import { secretMatcher } from '../../shared/platform/secrets/secret-equals';
import { UnauthorizedError } from '../../shared/platform/errors/unauthorized-error';
import type { Metrics } from '../../shared/platform/metrics/metrics';
import { state } from '../http/locals';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The bearer token of a request's `Authorization` header; throws 401 `missing` or `invalid`. */
export function bearerToken(req: Request): string {
  const header = req.get('authorization');
  if (!header) throw new UnauthorizedError('missing', 'bearer');
  const match = BEARER.exec(header);
  if (!match) throw new UnauthorizedError('invalid', 'bearer');
  return match[1];
}

/**
 * Authenticates the caller of a link-secret operation: the dashboard's link secret, compared in constant
 * time. Bearer operations are admitted by `bearerAdmission`. Every refusal is counted by reason.
 */
export function authenticate(linkSecret: string, metrics: Metrics) {
  const isLinkSecret = secretMatcher(linkSecret);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (state(res).operation?.auth !== 'link-secret') return next();
    try {
      if (!isLinkSecret(req.get('x-link-secret'))) throw new UnauthorizedError('bad_link_secret', 'link-secret');
      next();
    } catch (error) {
      if (error instanceof UnauthorizedError) metrics.authFailures.inc({ reason: error.reason });
      next(error);
    }
  };
}
