import { AppError } from './app-error';

/** 402: a new paid job would take the subject over its daily credit budget. Nothing was queued or charged. */
export class CreditBudgetError extends AppError {
  constructor(limit: number, resetsAt: Date, retryAfterSeconds: number) {
    super(
      402,
      'credit-budget-exhausted',
      'Daily credit budget used up',
      `This job would exceed the daily budget of ${limit} credit${limit === 1 ? '' : 's'}. ` +
        `The budget resets at ${resetsAt.toISOString()} (midnight UTC); nothing was charged.`,
      { headers: { 'Retry-After': String(retryAfterSeconds) } },
    );
  }
}
