import { normalizeSubject } from '../subjects/normalize-subject';
import type { DailyBudget } from './daily-budget';
import { type LedgerStore, utcDaysBack } from './ledger-store';

/** What the dashboard's usage page shows of a subject. */
export interface UsageReport {
  subject: string;
  /** Credits charged minus credits refunded. */
  credits_spent: number;
  credits_refunded: number;
  jobs_charged: number;
  /** Credits a subject may be charged per UTC day; null when there is no cap. */
  daily_credit_limit: number | null;
  /** Per UTC day, newest (today) first, days without charges included as 0: `credits` is charged minus refunded. */
  days: Array<{ date: string; credits: number; charged: number; refunded: number }>;
}

/** Reads a subject's charges for the dashboard from the ledger the spend cap enforces. */
export class UsageService {
  constructor(
    private readonly ledger: LedgerStore,
    private readonly budget: DailyBudget,
  ) {}

  /** The subject's totals and its last `days` UTC days, today (the budget's clock) first. */
  async report(rawSubject: string, days: number): Promise<UsageReport> {
    const subject = normalizeSubject(rawSubject, '/query/subject');
    const dates = utcDaysBack(this.budget.today(), days);
    const [usage, credits] = await Promise.all([this.ledger.usage(subject), this.ledger.spentOnDays(subject, dates)]);
    return {
      subject,
      credits_spent: usage.credits_spent,
      credits_refunded: usage.credits_refunded,
      jobs_charged: usage.jobs_charged,
      daily_credit_limit: this.budget.limit ?? null,
      days: dates.map((date, i) => ({ date, credits: credits[i].charged - credits[i].refunded, ...credits[i] })),
    };
  }
}
