import type { NextFunction, Request, Response } from 'express';
import { ValidationError } from '../../shared/platform/errors/problems';

/**
 * HTTP/1.1 makes `Host` mandatory (RFC 9112 §3.2). Node's own check answers a bare status line, so the
 * listener turns it off (`requireHostHeader: false`) and this refuses the request as problem+json instead.
 */
export function requireHost(req: Request, _res: Response, next: NextFunction): void {
  if (req.httpVersion === '1.1' && req.headers.host === undefined)
    return next(new ValidationError('An HTTP/1.1 request needs a Host header.'));
  next();
}
