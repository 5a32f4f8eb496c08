import type { NextFunction, Request, Response } from 'express';
import type { Services } from '../../shared/operations/operation';
import { state } from '../http/locals';

/** Hands a validated request to its registry operation and writes the answer. */
export function dispatchOperation(services: Services) {
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const { operation, params, principal, usage } = state(res);
    try {
      const result = await operation!.handle(
        { principal, usage, body: req.body ?? {}, query: req.query as Record<string, unknown>, params: params ?? {}, header: (name) => req.get(name) },
        services,
      );
      res.status(result.status).set(result.headers ?? {}).json(result.body);
    } catch (error) {
      next(error);
    }
  };
}
