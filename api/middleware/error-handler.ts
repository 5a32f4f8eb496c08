import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import { state } from '../http/locals';
import { problemBody, toAppError } from '../http/problem';

/**
 * The one place errors become responses: RFC 9457 problem+json with the request id. A 5xx never carries
 * the cause; the cause goes to the log under the same request id.
 */
export function errorHandler(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const appError = toAppError(error);
    const { requestId, route } = state(res);
    if (appError.status >= 500) {
      logger.error({ req_id: requestId, route, method: req.method, err: error }, 'request failed');
    }
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(appError.status);
    res.set(appError.headers);
    res.type('application/problem+json');
    res.send(JSON.stringify(problemBody(appError, requestId)));
  };
}
