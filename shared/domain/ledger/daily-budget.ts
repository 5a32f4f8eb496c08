import { DAY_MS, utcDay } from './ledger-store';

/** Where a subject stands against the daily credit budget, as `GET /v1/me` shows it. */
export interface BudgetStatus {
  limit: number;
  spent: number;
  remaining: number;
  resets_at: string;
}

/**
 * The optional per-subject credit budget per UTC day (`DAILY_CREDIT_LIMIT`). It only knows the calendar:
 * the ledger enforces it inside its atomic claim, so concurrent jobs can never overshoot it.
 */
export class DailyBudget {
  /** @param limit credits a subject may be charged per UTC day; undefined means no cap */
  constructor(
    readonly limit: number | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Today's UTC date, `YYYY-MM-DD`: the day a charge made now counts against. */
  today(): string {
    return utcDay(this.now());
  }

  /** The next UTC midnight, when today's budget resets. */
  resetsAt(): Date {
    return new Date((Math.floor(this.now() / DAY_MS) + 1) * DAY_MS);
  }

  /** Whole seconds until the reset, at least 1 (for `Retry-After`). */
  secondsUntilReset(): number {
    return Math.max(1, Math.ceil((this.resetsAt().getTime() - this.now()) / 1000));
  }

  /** The status to show for `spent` credits today, or null when there is no cap. */
  status(spent: number): BudgetStatus | null {
    if (this.limit === undefined) return null;
    // Refunds count on the day of the charge they give back, so a day's net never drops below 0; the floor is
    // only a guard.
    spent = Math.max(0, spent);
    return { limit: this.limit, spent, remaining: Math.max(0, this.limit - spent), resets_at: this.resetsAt().toISOString() };
  }
}
