import { expect } from 'chai';
import { MemoryLedgerStore } from '../../../../../shared/adapters/memory/memory-ledger-store';
import { DailyBudget } from '../../../../../shared/domain/ledger/daily-budget';
import type { ClaimRequest } from '../../../../../shared/domain/ledger/ledger-store';

describe('DailyBudget', () => {
  const at = (iso: string) => () => Date.parse(iso);

  it('a moment before midnight UTC counts against that day and resets at the next midnight, one second later', () => {
    const budget = new DailyBudget(5, at('2026-11-22T23:59:59.000Z'));
    expect(budget.today()).to.equal('2026-11-22');
    expect(budget.resetsAt().toISOString()).to.equal('2026-11-23T00:00:00.000Z');
    expect(budget.secondsUntilReset()).to.equal(1);
  });

  it('midnight itself starts the new day with a full day until the reset', () => {
    const budget = new DailyBudget(5, at('2026-11-23T00:00:00.000Z'));
    expect(budget.today()).to.equal('2026-11-23');
    expect(budget.secondsUntilReset()).to.equal(86_400);
  });

  it('the status shows what is left, never below zero, and is null without a cap', () => {
    const budget = new DailyBudget(5, at('2026-11-22T12:00:00.000Z'));
    expect(budget.status(2)).to.deep.equal({ limit: 5, spent: 2, remaining: 3, resets_at: '2026-11-23T00:00:00.000Z' });
    expect(budget.status(7)?.remaining).to.equal(0);
    expect(new DailyBudget(undefined).status(3)).to.equal(null);
  });
});

describe('MemoryLedgerStore daily limit', () => {
  let n = 0;
  const claim = (overrides: Partial<ClaimRequest>): ClaimRequest => ({
    subject: 's',
    key: `k${++n}`,
    fingerprint: 'fp',
    jobId: `job_${n}`,
    operation: 'createJob',
    cost: 1,
    ttlSeconds: 60,
    day: '2026-11-22',
    ...overrides,
  });

  it('20 concurrent claims under a limit of 3 give exactly 3 created; a replay over the limit is still replayed', async () => {
    const store = new MemoryLedgerStore();
    const claims = Array.from({ length: 20 }, () => claim({ dailyLimit: 3 }));
    const outcomes = (await Promise.all(claims.map((c) => store.claim(c)))).map((c) => c.outcome);
    expect(outcomes.filter((o) => o === 'created')).to.have.length(3);
    expect(outcomes.filter((o) => o === 'over_budget')).to.have.length(17);
    expect((await store.claim(claims[outcomes.indexOf('created')])).outcome).to.equal('replayed');
    expect(await store.spentOn('s', '2026-11-22')).to.equal(3);
    expect(await store.usage('s')).to.deep.equal({ jobs_charged: 3, credits_spent: 3, credits_refunded: 0 });
  });

  it('a job costing more than what is left is refused even when some budget remains', async () => {
    const store = new MemoryLedgerStore();
    expect((await store.claim(claim({ cost: 2, dailyLimit: 3 }))).outcome).to.equal('created');
    expect((await store.claim(claim({ cost: 2, dailyLimit: 3 }))).outcome).to.equal('over_budget');
    expect((await store.claim(claim({ cost: 1, dailyLimit: 3 }))).outcome).to.equal('created');
  });

  it('a new day starts from zero, and the past day keeps its own spend for the usage history', async () => {
    const store = new MemoryLedgerStore();
    expect((await store.claim(claim({ dailyLimit: 1 }))).outcome).to.equal('created');
    expect((await store.claim(claim({ day: '2026-11-23', dailyLimit: 1 }))).outcome).to.equal('created');
    expect(await store.spentOn('s', '2026-11-22')).to.equal(1);
    expect(await store.spentOn('s', '2026-11-23')).to.equal(1);
  });
});
