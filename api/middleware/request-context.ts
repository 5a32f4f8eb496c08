import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { RequestState } from '../http/locals';

// An incoming id is echoed into logs and bodies, so only a short, plain one is accepted.
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Gives every request an id (a sane `X-Request-Id`, else a new UUID), which {@link echoRequestId} echoes. */
export function requestContext(req: Request, res: Response, next: NextFunction): void {
  // Straight from the parsed headers: `req.get` would lower-case the name and test it for `referer` first.
  const incoming = req.headers['x-request-id'];
  const requestId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  // A fresh object of one fixed shape in place of Express's `Object.create(null)`, which V8 keeps as a
  // dictionary: every middleware after this one reads and writes these fields.
  const locals: RequestState = {
    requestId,
    route: 'unmatched',
    operation: undefined,
    params: undefined,
    principal: undefined,
    usage: undefined,
    heldRateLimits: undefined,
  };
  res.locals = locals;
  (req as Request & { id: string }).id = requestId;
  next();
}

/**
 * Echoes the request's id in its answer's `X-Request-Id`. Every path sets it (`createApp` as a request outside
 * `/v1/` arrives, `dispatchOperation` and the error middlewares as an operation's answer is written), not
 * `requestContext`: an operation's request then holds no header across its Redis wait
 * (docs/decisions/operation-headers-when-written.md).
 */
export function echoRequestId(res: Response): void {
  res.setHeader('X-Request-Id', (res.locals as RequestState).requestId);
}
