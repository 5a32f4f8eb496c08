import type { Request, Response } from 'express';
import type { Operation } from '../../shared/contract/operations/operation';

/**
 * Decides whether a request to an operation of one auth scheme may run: resolves when it may (having set
 * what the operation needs, such as the principal, in the request's state), throws the refusal otherwise.
 */
export type SchemeCheck = (req: Request, res: Response, operation: Operation) => Promise<void>;
