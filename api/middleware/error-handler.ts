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
    // Log what the caller is not told: an unexpected error, or a deliberate 5xx that carries a cause (a
    // Redis failure). A bare 503 such as /readyz's "not ready" has nothing more to say.
    const unexpected = appError !== error || (error as Error).cause !== undefined;
    if (appError.status >= 500 && unexpected) {
      logger.error({ req_id: requestId, route, method: req.method, err: error, cause: (error as Error).cause }, 'request failed');
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
