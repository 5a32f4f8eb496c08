import { expect } from 'chai';
import { DailyBudget } from '../../../../../shared/domain/ledger/daily-budget';
import type { LedgerStore } from '../../../../../shared/domain/ledger/ledger-store';
import { UsageService } from '../../../../../shared/domain/ledger/usage-service';

const NOON = Date.parse('2026-03-02T12:00:00.000Z');
const USAGE = { jobs_charged: 4, credits_spent: 30, credits_refunded: 5 };

/** A ledger answering fixed figures, recording which subject and days it was asked about. */
function ledger() {
  const asked: unknown[] = [];
  const store = {
    usage: async (subject: string) => {
      asked.push(['usage', subject]);
      return USAGE;
    },
    spentOnDays: async (subject: string, days: readonly string[]) => {
      asked.push(['days', subject, days]);
      return days.map((_, i) => ({ charged: 10 * (i + 1), refunded: i }));
    },
  } as unknown as LedgerStore;
  return { store, asked };
}

describe("UsageService (the dashboard's usage page)", () => {
  it("the report: the subject's totals and each day from today back, credits being charged minus refunded", async () => {
    const { store } = ledger();
    const report = await new UsageService(store, new DailyBudget(100, () => NOON)).report('user-1', 3);
    expect(report).to.deep.equal({
      subject: 'user-1',
      credits_spent: 30,
      credits_refunded: 5,
      jobs_charged: 4,
      daily_credit_limit: 100,
      days: [
        { date: '2026-03-02', credits: 10, charged: 10, refunded: 0 },
        { date: '2026-03-01', credits: 19, charged: 20, refunded: 1 },
        { date: '2026-02-28', credits: 28, charged: 30, refunded: 2 },
      ],
    });
  });

  it('no daily cap: the limit is null', async () => {
    const report = await new UsageService(ledger().store, new DailyBudget(undefined, () => NOON)).report('user-1', 1);
    expect(report.daily_credit_limit).to.equal(null);
  });

  it('the subject is normalised before the ledger is read', async () => {
    const { store, asked } = ledger();
    const report = await new UsageService(store, new DailyBudget(undefined, () => NOON)).report('  user-1 ', 1);
    expect(report.subject).to.equal('user-1');
    expect(asked).to.deep.equal([
      ['usage', 'user-1'],
      ['days', 'user-1', ['2026-03-02']],
    ]);
  });

  it('an empty subject: refused as a 400 pointing at the query parameter, the ledger not read', async () => {
    const { store, asked } = ledger();
    const refusal = await new UsageService(store, new DailyBudget(undefined, () => NOON)).report('  ', 1).then(
      () => undefined,
      (error: { status: number; errors: Array<{ path: string }> }) => error,
    );
    expect(refusal?.status).to.equal(400);
    expect(refusal?.errors.map((problem) => problem.path)).to.deep.equal(['/query/subject']);
    expect(asked).to.deep.equal([]);
  });
});
