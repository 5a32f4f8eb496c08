import type { NextFunction, Request, Response } from 'express';
import type { Operation, OperationRequest, OperationResult } from '../../shared/contract/operations/operation';
import type { Services } from '../../shared/domain/services';
import { admittedPrincipal, state } from '../http/locals';
import { writeJson } from '../http/write-json';
import { writeLines } from '../http/write-lines';
import { echoRequestId } from '../middleware/request-context';
import { setOperationAnswerHeaders } from '../middleware/security-headers';

/** Hands a validated request to its registry operation and writes the answer. */
export function dispatchOperation(services: Services) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { operation, params, usage } = state(res);
    const request: OperationRequest = {
      usage,
      body: req.body ?? {},
      // A plain property: a lazy getter cost more per request than the parse it would save.
      query: req.query as Record<string, unknown>,
      params: params ?? {},
      header: (name) => req.get(name),
    };
    try {
      const result = await handle(operation!, request, res, services);
      echoRequestId(res);
      setOperationAnswerHeaders(res);
      res.status(result.status);
      if (result.headers) res.set(result.headers);
      if (result.lines) await writeLines(res, result.lines);
      else writeJson(res, result.body);
    } catch (error) {
      next(error);
    }
  };
}

/** Runs the operation's handler with the request its scheme promises: a bearer one always gets the principal. */
function handle(operation: Operation, request: OperationRequest, res: Response, services: Services): Promise<OperationResult> {
  if (operation.auth === 'link-secret') return operation.handle(request, services);
  return operation.handle({ ...request, principal: admittedPrincipal(res) }, services);
}
