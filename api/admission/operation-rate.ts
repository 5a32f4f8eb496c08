import type { Operation } from '../../shared/contract/operations/operation';
import { operationPolicyName, operationRateKey } from '../../shared/domain/admission/operation-limits';
import type { RateLimitStore, RateWindow } from '../../shared/domain/admission/rate-limit-store';
import { RateLimitedError } from '../../shared/platform/errors/problems';
import type { RatePolicy } from '../http/rate-limit-headers';

/** An operation's own window after a call's hit, and the policy it is counted against. */
export interface OperationWindow {
  policy: RatePolicy;
  window: RateWindow;
}

/**
 * Counts one call of an operation by a subject against the operation's own `limits.perMinute`, or answers
 * undefined (no store call) for an operation without one.
 */
export type OperationRateCheck = (operation: Operation, subject: string) => Promise<OperationWindow | undefined>;

/** Seconds in the window an operation's own rate limit counts (`perMinute`). */
const WINDOW_SECONDS = 60;

/**
 * The check of operations' own rate limits, on the same store and script as the subject's window (one atomic
 * hit, shared by every replica on Redis), under a key of its own per operation and subject. REST admission
 * and MCP tool calls both count here, so a call is one call whichever way it came.
 */
export function operationRate(rateLimits: RateLimitStore): OperationRateCheck {
  return async (operation, subject) => {
    const perMinute = operation.limits?.perMinute;
    if (perMinute === undefined) return undefined;
    const window = await rateLimits.hit(operationRateKey(operation.operationId, subject), WINDOW_SECONDS);
    return { policy: { name: operationPolicyName(operation.operationId), quota: perMinute, windowSeconds: WINDOW_SECONDS }, window };
  };
}

/** Throws the 429 naming the operation's own limit when the call took its window over it. */
export function refuseOverOperationRate(operation: Operation, counted: OperationWindow | undefined): void {
  if (!counted || counted.window.count <= counted.policy.quota) return;
  throw new RateLimitedError(counted.window.resetInSeconds, { operation: operation.operationId, perMinute: counted.policy.quota });
}
