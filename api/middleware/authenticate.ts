import type { NextFunction, Request, Response } from 'express';
import type { TokenService } from '../../shared/auth/token-service';
import { secretMatcher } from '../../shared/auth/secret-equals';
import { UnauthorizedError } from '../../shared/errors/unauthorized-error';
import type { Metrics } from '../../shared/metrics/metrics';
import { state } from '../http/locals';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/**
 * Authenticates the matched operation's caller: a bearer token (verified, then checked against revocation)
 * or the dashboard's link secret (compared in constant time). Every refusal is counted by reason.
 */
export function authenticate(tokens: TokenService, linkSecret: string, metrics: Metrics) {
  const isLinkSecret = secretMatcher(linkSecret);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const locals = state(res);
    try {
      if (locals.operation!.auth === 'link-secret') {
        if (!isLinkSecret(req.get('x-link-secret'))) throw new UnauthorizedError('bad_link_secret', 'link-secret');
      } else {
        const header = req.get('authorization');
        if (!header) throw new UnauthorizedError('missing', 'bearer');
        const match = BEARER.exec(header);
        if (!match) throw new UnauthorizedError('invalid', 'bearer');
        locals.principal = await tokens.verify(match[1]);
      }
      next();
    } catch (error) {
      if (error instanceof UnauthorizedError) metrics.authFailures.inc({ reason: error.reason });
      next(error);
    }
  };
}
