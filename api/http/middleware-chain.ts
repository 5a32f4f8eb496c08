import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Runs a fixed list of middlewares one after another as a single middleware, with Express 5's rules: a
 * handler that throws, or returns a promise that rejects, passes its error on; the first error skips the
 * rest of the list and goes to the error middlewares after the chain.
 * Why not one `app.use` layer each: docs/decisions/registry-and-one-middleware-chain.md. `next('route')` and
 * `next('router')` are not supported: no handler here uses them.
 */
export function chain(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, done: NextFunction): void => {
    let index = 0;
    const next = (error?: unknown): void => {
      if (error) return done(error);
      const handler = handlers[index++];
      if (handler === undefined) return done();
      try {
        const returned: unknown = handler(req, res, next);
        if (isThenable(returned))
          returned.then(undefined, (rejected: unknown) => next(rejected ?? new Error('a middleware rejected without a reason')));
      } catch (thrown) {
        next(thrown ?? new Error('a middleware threw without a reason'));
      }
    };
    next();
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return value !== null && typeof value === 'object' && typeof (value as PromiseLike<unknown>).then === 'function';
}
