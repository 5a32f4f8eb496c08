import { AppError } from './app-error';

/**
 * 402: the job costs more than the whole daily credit limit, so no day's budget can ever take it. Unlike
 * {@link CreditBudgetError} there is nothing to wait for: no `Retry-After`. Nothing was queued or charged.
 */
export class PriceExceedsDailyLimitError extends AppError {
  constructor(price: number, limit: number) {
    super(
      402,
      'price-exceeds-daily-limit',
      'Price above the daily credit limit',
      `This job costs ${credits(price)}, more than the daily limit of ${credits(limit)}, so it cannot be accepted on any day. ` +
        'Ask for a smaller job; nothing was charged.',
    );
  }
}

function credits(amount: number): string {
  return `${amount} credit${amount === 1 ? '' : 's'}`;
}
