import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import type { ClaimRequest } from '../../shared/domain/ledger/ledger-store';
import { twoClientStores } from '../support/redis-fixture';

function request(overrides: Partial<ClaimRequest> = {}): ClaimRequest {
  return {
    subject: `subject-${randomBytes(4).toString('hex')}`,
    key: 'key-1',
    fingerprint: 'fp-a',
    jobId: `job_${randomBytes(24).toString('base64url').slice(0, 32)}`,
    operation: 'createJob',
    cost: 1,
    ttlSeconds: 3600,
    ...overrides,
  };
}

describe('RedisLedgerStore (Lua claim) on a private redis-server', () => {
  const t = twoClientStores('ledger:', (client) => new RedisLedgerStore(client.client, client.keys, client.guard));

  it('a first claim answers created, charges the cost once and indexes the job', async () => {
    const claim = request({ cost: 3 });
    expect((await t.storeA.claim(claim)).outcome).to.equal('created');
    expect(await t.storeA.usage(claim.subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 3, credits_refunded: 0 });
    const ids = await t.storeA.listJobIds(claim.subject, { limit: 10 });
    expect(ids.map((item) => item.value)).to.deep.equal([claim.jobId]);
  });

  it('a repeated claim with the same fingerprint answers replayed and charges nothing more', async () => {
    const claim = request();
    (await t.storeA.claim(claim)).outcome;
    expect((await t.storeB.claim(claim)).outcome).to.equal('replayed');
    expect(await t.storeA.usage(claim.subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    expect(await t.storeA.listJobIds(claim.subject, { limit: 10 })).to.have.length(1);
  });

  it('a claim of a used key with another fingerprint answers conflict and charges nothing', async () => {
    const claim = request();
    (await t.storeA.claim(claim)).outcome;
    expect((await t.storeA.claim({ ...claim, fingerprint: 'fp-b' })).outcome).to.equal('conflict');
    expect(await t.storeA.usage(claim.subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
  });

  it('200 concurrent claims of one key over two connections give exactly one created and one charge', async () => {
    const claim = request();
    const outcomes = (await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? t.storeA : t.storeB).claim(claim)))).map(
      (c) => c.outcome,
    );
    expect(outcomes.filter((o) => o === 'created')).to.have.length(1);
    expect(outcomes.filter((o) => o === 'replayed')).to.have.length(199);
    expect(await t.storeA.usage(claim.subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    expect(await t.storeB.listJobIds(claim.subject, { limit: 100 })).to.have.length(1);
  });

  it('concurrent claims of one key with two payloads: one created, the other payload only ever conflicts', async () => {
    const claim = request();
    const outcomes = (
      await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 === 0 ? t.storeA : t.storeB).claim({ ...claim, fingerprint: i % 2 === 0 ? 'fp-a' : 'fp-b' }),
        ),
      )
    ).map((c) => c.outcome);
    const winner = outcomes.indexOf('created');
    expect(outcomes.filter((o) => o === 'created')).to.have.length(1);
    outcomes.forEach((outcome, i) => {
      if (i === winner) return;
      expect(outcome).to.equal(i % 2 === winner % 2 ? 'replayed' : 'conflict');
    });
    expect((await t.storeA.usage(claim.subject)).jobs_charged).to.equal(1);
  });

  it('concurrent claims of distinct keys each charge once and get distinct sequence numbers', async () => {
    const subject = `subject-${randomBytes(4).toString('hex')}`;
    const claims = Array.from({ length: 50 }, (_, i) => request({ subject, key: `k${i}` }));
    const outcomes = (await Promise.all(claims.map((claim, i) => (i % 2 ? t.storeA : t.storeB).claim(claim)))).map((c) => c.outcome);
    expect(outcomes.every((o) => o === 'created')).to.equal(true);
    expect(await t.storeA.usage(subject)).to.deep.equal({ jobs_charged: 50, credits_spent: 50, credits_refunded: 0 });
    const ids = await t.storeA.listJobIds(subject, { limit: 100 });
    expect(new Set(ids.map((item) => item.seq)).size).to.equal(50);
    expect(new Set(ids.map((item) => item.value))).to.deep.equal(new Set(claims.map((c) => c.jobId)));
  });

  it('the idempotency record is written with the retention as its TTL, holding the fingerprint, shard and accepted charge', async () => {
    const acceptedAt = '2026-03-04T05:06:07.089Z';
    const claim = request({ ttlSeconds: 120, cost: 7, shard: 2, acceptedAt });
    await t.storeA.claim(claim);
    const ttl = await t.a.client.ttl(t.a.keys.idempotency(claim.subject, claim.jobId));
    expect(ttl).to.be.within(110, 120);
    expect(await t.a.client.get(t.a.keys.idempotency(claim.subject, claim.jobId))).to.equal(`fp-a:2:7:${Date.parse(acceptedAt)}`);
    expect(await t.storeB.claim({ ...claim, cost: 99, acceptedAt: new Date().toISOString() })).to.deep.equal({
      outcome: 'replayed',
      shard: 2,
      accepted: { cost: 7, at: acceptedAt },
    });
  });

  it('a record written before it held the charge (fingerprint, or fingerprint:shard) replays on its shard with no accepted charge', async () => {
    for (const [stored, shard] of [
      ['fp-a', 0],
      ['fp-a:3', 3],
    ] as const) {
      const claim = request();
      await t.a.client.set(t.a.keys.idempotency(claim.subject, claim.jobId), stored);
      expect(await t.storeA.claim(claim)).to.deep.equal({ outcome: 'replayed', shard });
    }
  });

  it('listJobIds pages newest first, strictly below the cursor, and stays correct while jobs are added', async () => {
    const subject = `subject-${randomBytes(4).toString('hex')}`;
    const first = Array.from({ length: 5 }, (_, i) => request({ subject, key: `a${i}` }));
    for (const claim of first) (await t.storeA.claim(claim)).outcome;
    const page1 = await t.storeA.listJobIds(subject, { limit: 2 });
    expect(page1.map((i) => i.value)).to.deep.equal([first[4].jobId, first[3].jobId]);
    (await t.storeB.claim(request({ subject, key: 'late' }))).outcome;
    const page2 = await t.storeA.listJobIds(subject, { limit: 2, before: page1[1].seq });
    expect(page2.map((i) => i.value)).to.deep.equal([first[2].jobId, first[1].jobId]);
    const page3 = await t.storeA.listJobIds(subject, { limit: 2, before: page2[1].seq });
    expect(page3.map((i) => i.value)).to.deep.equal([first[0].jobId]);
  });

  it('a subject that never claimed has zero usage and no jobs', async () => {
    expect(await t.storeA.usage('nobody')).to.deep.equal({ jobs_charged: 0, credits_spent: 0, credits_refunded: 0 });
    expect(await t.storeA.listJobIds('nobody', { limit: 5 })).to.deep.equal([]);
  });

  it('20 concurrent claims of distinct jobs through two clients under a daily limit of 3: exactly 3 created, 17 over_budget', async () => {
    const subject = `subject-${randomBytes(4).toString('hex')}`;
    const claims = Array.from({ length: 20 }, (_, i) => request({ subject, key: `k${i}`, day: '2026-11-22', dailyLimit: 3 }));
    const outcomes = (await Promise.all(claims.map((claim, i) => (i % 2 ? t.storeA : t.storeB).claim(claim)))).map((c) => c.outcome);
    expect(outcomes.filter((o) => o === 'created')).to.have.length(3);
    expect(outcomes.filter((o) => o === 'over_budget')).to.have.length(17);
    expect(await t.storeA.usage(subject)).to.deep.equal({ jobs_charged: 3, credits_spent: 3, credits_refunded: 0 });
    expect(await t.storeB.spentOn(subject, '2026-11-22')).to.equal(3);
    expect(await t.storeB.spentOn(subject, '2026-11-23')).to.equal(0);
    const spendKey = t.a.keys.subjectDailySpend(subject, '2026-11-22');
    expect(await t.a.client.ttl(spendKey)).to.be.within(1, 2 * 86_400);
    const refused = claims[outcomes.indexOf('over_budget')];
    expect(await t.a.client.exists(t.a.keys.idempotency(refused.subject, refused.jobId))).to.equal(0);
  });

  it('over the daily limit, a replay of an accepted claim is still replayed and a conflicting one still conflict', async () => {
    const claim = request({ day: '2026-11-22', dailyLimit: 1 });
    expect((await t.storeA.claim(claim)).outcome).to.equal('created');
    expect((await t.storeB.claim({ ...claim, key: 'other', jobId: `${claim.jobId}x` })).outcome).to.equal('over_budget');
    expect((await t.storeB.claim(claim)).outcome).to.equal('replayed');
    expect((await t.storeB.claim({ ...claim, fingerprint: 'fp-other' })).outcome).to.equal('conflict');
    expect(await t.storeA.spentOn(claim.subject, '2026-11-22')).to.equal(1);
  });

  it('a new day has a new budget, and no limit means no cap', async () => {
    const subject = `subject-${randomBytes(4).toString('hex')}`;
    expect((await t.storeA.claim(request({ subject, day: '2026-11-22', dailyLimit: 1 }))).outcome).to.equal('created');
    expect((await t.storeA.claim(request({ subject, day: '2026-11-22', dailyLimit: 1 }))).outcome).to.equal('over_budget');
    expect((await t.storeA.claim(request({ subject, day: '2026-11-23', dailyLimit: 1 }))).outcome).to.equal('created');
    expect((await t.storeA.claim(request({ subject, day: '2026-11-23' }))).outcome).to.equal('created');
  });

  it("an operation's own cap: 10 concurrent claims under a cap of 3 give 3 created, 7 over_operation_budget writing nothing; another operation and the next day are not counted", async () => {
    const subject = `subject-${randomBytes(4).toString('hex')}`;
    const capped = (i: number, overrides: Partial<ClaimRequest> = {}) =>
      request({ subject, key: `k${i}`, operation: 'countWords', day: '2026-11-22', operationLimit: 3, ...overrides });
    const claims = Array.from({ length: 10 }, (_, i) => capped(i));
    const outcomes = (await Promise.all(claims.map((claim, i) => (i % 2 ? t.storeA : t.storeB).claim(claim)))).map((c) => c.outcome);
    expect(outcomes.filter((o) => o === 'created')).to.have.length(3);
    expect(outcomes.filter((o) => o === 'over_operation_budget')).to.have.length(7);
    expect(await t.storeA.usage(subject)).to.deep.equal({ jobs_charged: 3, credits_spent: 3, credits_refunded: 0 });
    const refused = claims[outcomes.indexOf('over_operation_budget')];
    expect(await t.a.client.exists(t.a.keys.idempotency(refused.subject, refused.jobId))).to.equal(0);
    const opKey = t.a.keys.subjectOperationDailySpend(subject, 'countWords', '2026-11-22');
    expect(await t.a.client.get(opKey)).to.equal('3');
    expect(await t.a.client.ttl(opKey)).to.be.within(1, 2 * 86_400);
    expect((await t.storeA.claim(capped(20, { operation: 'translateDocument' }))).outcome, 'another operation').to.equal('created');
    expect((await t.storeA.claim(capped(21, { day: '2026-11-23' }))).outcome, 'the next day').to.equal('created');
    expect((await t.storeB.claim(claims[outcomes.indexOf('created')])).outcome, 'a replay').to.equal('replayed');
  });

  it("an operation's cap counts charges only: a refund does not give its allowance back, though it gives back the connector's budget", async () => {
    const subject = `subject-${randomBytes(4).toString('hex')}`;
    const claim = request({ subject, cost: 2, operation: 'countWords', day: '2026-11-22', operationLimit: 2, dailyLimit: 2 });
    expect((await t.storeA.claim(claim)).outcome).to.equal('created');
    const chargedAt = new Date().toISOString();
    expect(await t.storeA.refund({ subject, jobId: claim.jobId, credits: 2, chargedAt, ttlSeconds: 60, day: '2026-11-22' })).to.equal(true);
    expect(await t.storeA.spentOn(subject, '2026-11-22')).to.equal(0);
    const again = await t.storeB.claim({ ...claim, key: 'k2', jobId: `${claim.jobId}y` });
    expect(again.outcome).to.equal('over_operation_budget');
  });
});
