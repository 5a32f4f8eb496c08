import type { Response } from 'express';
import type { Principal } from '../../shared/auth/principal';
import type { Operation } from '../../shared/operations/operation';

/** Per-request state the middlewares hand on, kept in `res.locals` rather than on a widened Request. */
export interface RequestState {
  requestId: string;
  /** Route template for metrics and logs: an operation path, a fixed path, or `unmatched`. */
  route: string;
  operation?: Operation;
  params?: Record<string, string>;
  principal?: Principal;
}

/** The typed view of `res.locals`. */
export function state(res: Response): RequestState {
  return res.locals as RequestState;
}
