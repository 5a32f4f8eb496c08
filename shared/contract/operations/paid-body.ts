import type { Operation, PaidBodyShape } from './operation';

/** The body field of a wrapped body, and the query parameter of a top-level one, that carry the key. */
export const IDEMPOTENCY_FIELD = 'idempotency_key';

/** Where `operation`'s body carries the job's input; `wrapped` unless it declares otherwise. */
export function bodyShapeOf(operation: Pick<Operation, 'bodyShape'>): PaidBodyShape {
  return operation.bodyShape ?? 'wrapped';
}

/**
 * The job's input in a body that passed `operation`'s schema: its `input` member, or the body itself. What
 * every caller that prices a request (the handler, the MCP confirmation, a payment) reads, so the input
 * priced is the input the job runs on, whatever the shape.
 */
export function jobInputOf(operation: Pick<Operation, 'bodyShape'>, body: unknown): unknown {
  return bodyShapeOf(operation) === 'top-level' ? body : (body as { input?: unknown } | undefined)?.input;
}

/** Where the job's input sits in the request, as a 400's path names it: `/body/input` or `/body`. */
export function inputPointer(operation: Pick<Operation, 'bodyShape'>): string {
  return bodyShapeOf(operation) === 'top-level' ? '/body' : '/body/input';
}
