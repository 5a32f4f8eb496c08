import type { NextFunction, Request, Response } from 'express';
import type { Operation, OperationRequest, OperationResult } from '../../shared/contract/operations/operation';
import type { Services } from '../../shared/domain/services';
import { admittedPrincipal, state } from '../http/locals';
import { setHeldRateLimitHeaders } from '../http/rate-limit-headers';
import { writeJson } from '../http/write-json';
import { writeLines } from '../http/write-lines';
import { joinsOperationHead, writeOperationJson } from '../http/write-operation-answer';
import { echoRequestId } from '../middleware/request-context';
import { setOperationAnswerHeaders } from '../middleware/security-headers';
import { payWithX402 } from '../x402/pay-with-x402';

/** The absolute URL of a paid resource, as `PaymentRequired.resource` names it: the public URL and the operation's path. */
function resourceUrl(res: Response, path: string): string {
  const publicUrl = (res.app.get('public url') as string | undefined) ?? '';
  return `${publicUrl}${path}`;
}

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
      // Fail closed: an answer is never written for a request whose put-off admission was not made.
      const { putOff } = state(res);
      if (putOff?.pending) await putOff.admitNow();
      if (!result.lines && joinsOperationHead(result.headers)) return writeOperationJson(res, result.status, result.body, result.headers);
      echoRequestId(res);
      setOperationAnswerHeaders(res);
      setHeldRateLimitHeaders(res);
      res.status(result.status);
      if (result.headers) res.set(result.headers);
      if (result.lines) await writeLines(res, result.lines);
      else writeJson(res, result.body);
    } catch (error) {
      next(error);
    }
  };
}

/**
 * Runs the operation's handler with the request its scheme promises: a bearer one always gets the principal,
 * except a paid one admitted to be paid with x402, which the checkout runs for the payer's account.
 */
function handle(operation: Operation, request: OperationRequest, res: Response, services: Services): Promise<OperationResult> {
  if (operation.auth === 'link-secret') return operation.handle(request, services);
  if (state(res).x402 && services.x402) return payWithX402({ operation, request, url: resourceUrl(res, operation.path) }, services);
  const { putOff } = state(res);
  return operation.handle({ ...request, principal: admittedPrincipal(res), ...(putOff ? { admission: putOff } : {}) }, services);
}
