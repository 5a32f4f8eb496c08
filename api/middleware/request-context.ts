import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { state } from '../http/locals';

// An incoming id is echoed into logs and bodies, so only a short, plain one is accepted.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (a sane `X-Request-Id`, else a new UUID) and echoes it in the response. */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  const incoming = req.get('x-request-id');
  const requestId = incoming && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  Object.assign(res.locals, { requestId, route: 'unmatched' });
  (req as Request & { id: string }).id = requestId;
  res.setHeader('X-Request-Id', state(res).requestId);
  next();
}
