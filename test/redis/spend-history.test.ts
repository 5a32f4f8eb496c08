import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MemoryJobIdKeyStore } from '../../shared/adapters/memory/memory-job-id-key-store';
import { MemoryJobQueue } from '../../shared/adapters/memory/memory-job-queue';
import { MemoryLedgerStore } from '../../shared/adapters/memory/memory-ledger-store';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import { StoredJobIdKey } from '../../shared/domain/jobs/job-id-key';
import { JobLifecycle } from '../../shared/domain/jobs/job-lifecycle';
import { JobService } from '../../shared/domain/jobs/job-service';
import { meteredMoney } from '../../shared/domain/jobs/job-settlement';
import { DailyBudget } from '../../shared/domain/ledger/daily-budget';
import { type ClaimRequest, type LedgerStore, utcDaysBack } from '../../shared/domain/ledger/ledger-store';
import { UsageService } from '../../shared/domain/ledger/usage-service';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { twoClientStores } from '../support/redis-fixture';

function claim(subject: string, day: string, cost: number, extra: Partial<ClaimRequest> = {}): ClaimRequest {
  const id = randomBytes(12).toString('base64url');
  return { subject, key: id, fingerprint: 'fp', jobId: `job_${id}`, operation: 'createJob', cost, ttlSeconds: 3600, day, ...extra };
}

const newSubject = () => `history-${randomBytes(4).toString('hex')}@example.com`;

/** A job service and the usage report on one ledger, both on a clock the test moves. */
function onClock(ledger: LedgerStore, clock: { ms: number }, limit?: number) {
  const budget = new DailyBudget(limit, () => clock.ms);
  const queue = new MemoryJobQueue({
    lifecycle: new JobLifecycle({ processors: new Map([['createJob', async () => ({})]]) }),
    concurrency: 1,
    attempts: 1,
    backoffMs: 0,
    retentionMs: 60_000,
  });
  const jobs = new JobService({
    ledger,
    queue,
    lifecycle: new JobLifecycle({ money: meteredMoney((refund) => ledger.refund(refund), 3600) }),
    jobIdKey: new StoredJobIdKey(new MemoryJobIdKeyStore(), deriveKeys('s'.repeat(32)).jobIdKey),
    retentionSeconds: 3600,
    budget,
  });
  return { jobs, usage: new UsageService(ledger, budget), close: () => queue.close(1000) };
}

/** The same checks on each ledger; every case uses its own subjects. */
function keepsTheSpendHistory(name: string, ledger: () => LedgerStore) {
  describe(`the spend history, ${name}`, () => {
    it('usage days add up to the totals after jobs on two different UTC days (an injected clock), newest first with zeros between', async () => {
      const clock = { ms: Date.parse('2026-03-30T23:59:58.000Z') };
      const { jobs, usage, close } = onClock(ledger(), clock, 10);
      try {
        const subject = newSubject();
        for (const key of ['a', 'b'])
          await jobs.submit({ subject, operation: 'createJob', input: { prompt: key }, cost: 3, idempotencyKey: key });
        clock.ms = Date.parse('2026-04-01T00:00:01.000Z');
        await jobs.submit({ subject, operation: 'createJob', input: { prompt: 'c' }, cost: 4, idempotencyKey: 'c' });
        // A replay charges nothing, whatever day it comes.
        await jobs.submit({ subject, operation: 'createJob', input: { prompt: 'a' }, cost: 3, idempotencyKey: 'a' });

        const report = await usage.report(` ${subject} `, 5);
        expect(report).to.deep.include({ subject, credits_spent: 10, jobs_charged: 3, daily_credit_limit: 10 });
        expect(report.days).to.deep.equal([
          { date: '2026-04-01', credits: 4, charged: 4, refunded: 0 },
          { date: '2026-03-31', credits: 0, charged: 0, refunded: 0 },
          { date: '2026-03-30', credits: 6, charged: 6, refunded: 0 },
          { date: '2026-03-29', credits: 0, charged: 0, refunded: 0 },
          { date: '2026-03-28', credits: 0, charged: 0, refunded: 0 },
        ]);
        expect(report.days.reduce((sum, day) => sum + day.credits, 0)).to.equal(report.credits_spent);
        // The cap reads the same figure for that day.
        expect(await ledger().spentOn(subject, '2026-03-30')).to.equal(6);
        expect((await usage.report(subject, 1)).days).to.deep.equal([{ date: '2026-04-01', credits: 4, charged: 4, refunded: 0 }]);
      } finally {
        await close();
      }
    });

    it('a claim refused by the cap adds nothing to the day; spentOnDays answers in the order asked, charged and refunded 0 for days never charged', async () => {
      const subject = newSubject();
      expect((await ledger().claim(claim(subject, '2026-05-02', 3, { dailyLimit: 4 }))).outcome).to.equal('created');
      expect((await ledger().claim(claim(subject, '2026-05-02', 2, { dailyLimit: 4 }))).outcome).to.equal('over_budget');
      expect((await ledger().claim(claim(subject, '2026-05-04', 1))).outcome).to.equal('created');
      expect(await ledger().spentOnDays(subject, ['2026-05-02', '2026-05-03', '2026-05-04'])).to.deep.equal([
        { charged: 3, refunded: 0 },
        { charged: 0, refunded: 0 },
        { charged: 1, refunded: 0 },
      ]);
      expect(await ledger().spentOnDays(subject, [])).to.deep.equal([]);
      expect(await ledger().spentOnDays(newSubject(), ['2026-05-02'])).to.deep.equal([{ charged: 0, refunded: 0 }]);
    });

    it('a job refunded by 20 concurrent callers is refunded once, on its charge’s day: usage, the day and the cap read net', async () => {
      const subject = newSubject();
      const charge = claim(subject, '2026-07-01', 3, { dailyLimit: 4 });
      expect((await ledger().claim(charge)).outcome).to.equal('created');
      expect((await ledger().claim(claim(subject, '2026-07-01', 2, { dailyLimit: 4 }))).outcome).to.equal('over_budget');
      const refund = {
        subject,
        jobId: charge.jobId,
        credits: 3,
        chargedAt: '2026-07-01T10:00:00.000Z',
        ttlSeconds: 3600,
        day: '2026-07-01',
      };
      const made = await Promise.all(Array.from({ length: 20 }, () => ledger().refund(refund)));
      expect(made.filter(Boolean)).to.have.length(1);
      expect(await ledger().usage(subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 0, credits_refunded: 3 });
      expect(await ledger().spentOn(subject, '2026-07-01')).to.equal(0);
      expect(await ledger().spentOnDays(subject, ['2026-07-01'])).to.deep.equal([{ charged: 3, refunded: 3 }]);
      // The refunded credits are free again for that day's cap.
      expect((await ledger().claim(claim(subject, '2026-07-01', 4, { dailyLimit: 4 }))).outcome).to.equal('created');
      // The same job id charged anew (its key expired and it was submitted again) is another charge to refund.
      expect(await ledger().refund({ ...refund, chargedAt: '2026-07-02T10:00:00.000Z' })).to.equal(true);
      expect(await ledger().refund({ ...refund, chargedAt: '2026-07-02T10:00:00.000Z' })).to.equal(false);
    });

    it('a charge 89 days before the newest is still among the 90 days shown; one 90 days before is not shown', async () => {
      const subject = newSubject();
      const back = utcDaysBack('2026-09-30', 91);
      for (const [day, cost] of [
        [back[90], 6],
        [back[89], 5],
        [back[0], 1],
      ] as const)
        expect((await ledger().claim(claim(subject, day, cost))).outcome).to.equal('created');
      const shown = await ledger().spentOnDays(subject, back.slice(0, 90));
      expect(shown[0]).to.deep.equal({ charged: 1, refunded: 0 });
      expect(shown[89]).to.deep.equal({ charged: 5, refunded: 0 });
      expect(shown.reduce((a, b) => a + b.charged, 0)).to.equal(6);
    });
  });
}

describe('the dashboard usage reads the ledger the spend cap enforces', () => {
  let memory: MemoryLedgerStore;
  beforeEach(() => {
    memory = new MemoryLedgerStore();
  });
  keepsTheSpendHistory('in memory', () => memory);

  const t = twoClientStores('history:', (client) => new RedisLedgerStore(client.client, client.keys, client.guard));
  keepsTheSpendHistory('on Redis', () => t.storeA);

  describe('on Redis, beside the spend keys of earlier releases', () => {
    it('a day charged before the history existed reads from its spend key, and stays whole in the history once the key expires', async () => {
      const subject = newSubject();
      const day = '2026-06-10';
      // What an earlier release leaves: the day's spend key only (two days' lifetime), no history hash.
      await t.a.client.set(t.a.keys.subjectDailySpend(subject, day), '5', 'EX', 2 * 86_400);
      expect(await t.storeA.spentOnDays(subject, [day])).to.deep.equal([{ charged: 5, refunded: 0 }]);
      // The first charge after the upgrade copies the day's total (5 + 2), not just its own cost.
      expect((await t.storeB.claim(claim(subject, day, 2, { dailyLimit: 7 }))).outcome).to.equal('created');
      expect(
        (await t.storeB.claim(claim(subject, day, 1, { dailyLimit: 7 }))).outcome,
        'the cap still counts the earlier charges',
      ).to.equal('over_budget');
      expect(await t.a.client.hget(t.a.keys.subjectSpendHistory(subject), day)).to.equal('7');
      await t.a.client.del(t.a.keys.subjectDailySpend(subject, day));
      expect(await t.storeA.spentOnDays(subject, [day])).to.deep.equal([{ charged: 7, refunded: 0 }]);
      expect(await t.storeA.spentOn(subject, day), 'the cap reads its own key only').to.equal(0);
    });

    it('the history is one hash per subject beside its spend keys, and outlives its newest day by more than 90 days', async () => {
      const subject = newSubject();
      await t.storeA.claim(claim(subject, '2026-06-11', 1));
      const key = t.a.keys.subjectSpendHistory(subject);
      expect(await t.a.client.type(key)).to.equal('hash');
      expect(await t.a.client.ttl(key)).to.be.greaterThan(91 * 86_400);
      expect(await t.a.client.ttl(t.a.keys.subjectDailySpend(subject, '2026-06-11')), 'the cap key keeps its two days').to.be.at.most(
        2 * 86_400,
      );
      expect(key).to.match(/^history:subj:[A-Za-z0-9_-]{22}:spent-days$/);
    });

    it("a day's first charge drops the days more than 90 before it from the history, once; later charges that day scan nothing", async () => {
      const subject = newSubject();
      const back = utcDaysBack('2026-12-31', 92);
      for (const day of [back[91], back[90], back[1]]) await t.storeA.claim(claim(subject, day, 1));
      const key = t.a.keys.subjectSpendHistory(subject);
      expect((await t.a.client.hkeys(key)).sort()).to.deep.equal([back[91], back[90], back[1]].sort());
      await t.storeA.claim(claim(subject, back[0], 1));
      expect((await t.a.client.hkeys(key)).sort()).to.deep.equal([back[90], back[1], back[0]].sort());
      const scans = Number(/cmdstat_hkeys:calls=(\d+)/.exec(String(await t.a.client.info('commandstats')))?.[1] ?? 0);
      await t.storeA.claim(claim(subject, back[0], 1));
      const after = Number(/cmdstat_hkeys:calls=(\d+)/.exec(String(await t.a.client.info('commandstats')))?.[1] ?? 0);
      expect(after - scans).to.equal(0);
      expect(await t.a.client.hget(key, back[0])).to.equal('2');
    });
  });
});
