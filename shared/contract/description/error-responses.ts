import type { HeaderSpec } from '../operations/operation';
import { rateLimitHeaderSpecs } from './rate-limit-header-specs';

interface ErrorResponse {
  name: string;
  description: string;
  headers?: Record<string, HeaderSpec>;
}

const retryAfter: HeaderSpec = { description: 'Seconds to wait before retrying.', schema: { type: 'integer' }, required: true };

/** The problem+json responses an operation may list, by status. */
export const ERROR_RESPONSES: Readonly<Record<number, ErrorResponse>> = {
  400: { name: 'BadRequest', description: 'The request is malformed or does not match the schema; errors lists each problem.' },
  401: {
    name: 'Unauthorized',
    description: 'The credential is missing, expired or revoked. The person must reconnect.',
    headers: { 'WWW-Authenticate': { description: 'The Bearer challenge.', schema: { type: 'string' } }, ...rateLimitHeaderSpecs(false) },
  },
  402: {
    name: 'CreditBudgetExhausted',
    description:
      "A new paid job would exceed the person's daily credit budget. Type credit-budget-exhausted: the budget is used up for today; " +
      'the detail says when it resets (also Retry-After). Type price-exceeds-daily-limit: the job costs more than the whole daily ' +
      'budget and can never be accepted (no Retry-After). Nothing was charged.',
    headers: {
      'Retry-After': { ...retryAfter, required: false, description: 'Seconds until the budget resets (credit-budget-exhausted only).' },
    },
  },
  404: { name: 'NotFound', description: 'No such resource for this person.' },
  413: { name: 'PayloadTooLarge', description: 'The body is over 64 KiB.' },
  415: { name: 'UnsupportedMediaType', description: 'The body is not application/json.' },
  409: { name: 'JobFinished', description: 'The job already succeeded or failed, so it can no longer be canceled.' },
  422: { name: 'IdempotencyConflict', description: 'The idempotency key was already used with a different payload.' },
  429: {
    name: 'TooManyRequests',
    description: 'Rate limited, or too many failed authentications from this address: wait Retry-After seconds.',
    headers: { 'Retry-After': retryAfter, ...rateLimitHeaderSpecs(true) },
  },
  500: { name: 'InternalError', description: 'An unexpected error; nothing about it is disclosed.' },
  503: { name: 'Unavailable', description: 'Temporarily unavailable: wait Retry-After seconds.', headers: { 'Retry-After': retryAfter } },
};
