import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { grantFingerprint } from '../../shared/domain/credits/credit-rules';
import type { CreditAccount, CreditEntry, CreditStore, GrantRequest, HoldRequest } from '../../shared/domain/credits/credit-store';

/** Two handles on one store's state: two replicas' clients on Redis, the same object in memory. */
export interface CreditStores {
  a: CreditStore;
  b: CreditStore;
}

/** A settled hold's record is kept this long in these tests. */
const TTL = 600;

const newSubject = () => `credits-${randomBytes(5).toString('hex')}@example.com`;
const newJobId = () => `job_${randomBytes(12).toString('base64url')}`;
const newGrantId = () => `cs_test_${randomBytes(8).toString('hex')}`;

/** A grant request with its fingerprint computed as the service computes it. */
export function grantOf(subject: string, credits: number, grantId = newGrantId(), note?: string, lowThreshold?: number): GrantRequest {
  return {
    subject,
    grantId,
    credits,
    ...(note ? { note } : {}),
    fingerprint: grantFingerprint(subject, credits, note),
    ...(lowThreshold === undefined ? {} : { lowThreshold }),
  };
}

/** Every entry of a subject, read page by page (newest first). */
export async function allEntries(store: CreditStore, subject: string): Promise<CreditEntry[]> {
  const entries: CreditEntry[] = [];
  let before: number | undefined;
  for (;;) {
    const page = await store.entries(subject, { limit: 50, ...(before === undefined ? {} : { before }) });
    entries.push(...page.map((item) => item.value));
    if (page.length < 50) return entries;
    before = page[page.length - 1].seq;
  }
}

/** The account the entries add up to: balance = grants + adjustments − holds + releases; held = holds − captures − releases. */
export function accountOfEntries(entries: readonly CreditEntry[]): CreditAccount {
  const sum = (kind: CreditEntry['kind']) => entries.filter((e) => e.kind === kind).reduce((total, e) => total + e.credits, 0);
  return {
    balance: sum('grant') + sum('adjustment') - sum('hold') + sum('release') - sum('expire') - sum('void'),
    held: sum('hold') - sum('capture') - sum('release'),
  };
}

/** Checks that the subject's entries add up to its account, on both handles. */
export async function expectEntriesAddUp(stores: CreditStores, subject: string): Promise<CreditAccount> {
  const account = await stores.a.account(subject);
  expect(await stores.b.account(subject)).to.deep.equal(account);
  expect(accountOfEntries(await allEntries(stores.b, subject)), 'the entries add up to the account').to.deep.equal(account);
  return account;
}

/**
 * The behaviour every credit store must show, on any backend and topology: grants once per id, holds once per
 * acceptance and only with the funds, a settlement once per job whatever the number of callers, entries that
 * add up to the account. `stores()` is read when each test runs (mocha hooks fill it in).
 */
export function creditStoreContract(label: string, stores: () => CreditStores): void {
  describe(`credit store contract: ${label}`, function () {
    this.timeout(30_000);

    /** A subject with `credits` granted to it. */
    async function funded(credits: number): Promise<string> {
      const subject = newSubject();
      expect((await stores().a.grant(grantOf(subject, credits))).outcome).to.equal('created');
      return subject;
    }

    function holdOf(subject: string, credits: number, jobId = newJobId(), extra: Partial<HoldRequest> = {}): HoldRequest {
      return { subject, jobId, credits, at: new Date().toISOString(), ...extra };
    }

    it('a grant adds its credits once: the same id and body again replays it on either handle, another body conflicts', async () => {
      const { a, b } = stores();
      const subject = newSubject();
      const grant = grantOf(subject, 25, newGrantId(), 'checkout cs_1');
      const created = await a.grant(grant);
      expect(created).to.deep.include({ outcome: 'created', account: { balance: 25, held: 0 }, fellLow: false });
      const entry = created.outcome === 'created' ? created.entry : undefined;
      expect(entry).to.deep.include({ kind: 'grant', credits: 25, grant_id: grant.grantId, note: 'checkout cs_1' });
      expect(entry?.id).to.match(/^cre_/);
      expect(await b.grant(grant)).to.deep.equal({ outcome: 'replayed', entry, account: { balance: 25, held: 0 } });
      expect(await b.grant(grantOf(subject, 26, grant.grantId, 'checkout cs_1'))).to.deep.equal({ outcome: 'conflict' });
      expect(await a.grant(grantOf(subject, 25, grant.grantId))).to.deep.equal({ outcome: 'conflict' }, 'without its note');
      expect(await a.account(subject)).to.deep.equal({ balance: 25, held: 0 });
      expect(await allEntries(a, subject)).to.deep.equal([entry]);
    });

    it("a grant id another subject's grant used conflicts, and adds nothing to either account", async () => {
      const { a, b } = stores();
      const [first, second] = [newSubject(), newSubject()];
      const grant = grantOf(first, 10);
      expect((await a.grant(grant)).outcome).to.equal('created');
      expect(await b.grant(grantOf(second, 10, grant.grantId))).to.deep.equal({ outcome: 'conflict' });
      expect(await a.account(second)).to.deep.equal({ balance: 0, held: 0 });
      expect(await b.account(first)).to.deep.equal({ balance: 10, held: 0 });
    });

    it('an adjustment applies whatever the balance, and reports each fall below the threshold once', async () => {
      const { a, b } = stores();
      const subject = newSubject();
      const step = async (credits: number) => {
        const result = await (credits % 2 ? a : b).grant(grantOf(subject, credits, newGrantId(), undefined, 10));
        return result.outcome === 'created' ? [result.entry.kind, result.account.balance, result.fellLow] : result.outcome;
      };
      expect(await step(15), 'a rise is no fall').to.deep.equal(['grant', 15, false]);
      expect(await step(-10), 'from 15 to 5').to.deep.equal(['adjustment', 5, true]);
      expect(await step(-6), 'already below').to.deep.equal(['adjustment', -1, false]);
      expect(await step(30), 'lifted above').to.deep.equal(['grant', 29, false]);
      expect(await step(-19), 'from 29 to 10: not below').to.deep.equal(['adjustment', 10, false]);
      expect(await step(-1), 'from 10 to 9').to.deep.equal(['adjustment', 9, true]);
      await expectEntriesAddUp(stores(), subject);
    });

    it('a hold moves the price from balance to held once per acceptance; short funds hold nothing and record nothing', async () => {
      const { a, b } = stores();
      const subject = await funded(10);
      const hold = holdOf(subject, 7);
      const held = await a.hold(hold);
      expect(held).to.deep.include({ outcome: 'held', account: { balance: 3, held: 7 }, fellLow: false });
      expect(held.outcome === 'held' && held.entry).to.deep.include({ kind: 'hold', credits: 7, job_id: hold.jobId, at: hold.at });
      expect(await b.hold(hold)).to.deep.equal({ outcome: 'exists', account: { balance: 3, held: 7 } });
      expect(await b.hold({ ...hold, at: new Date(Date.now() + 1000).toISOString() }), 'another acceptance while open').to.deep.equal({
        outcome: 'exists',
        account: { balance: 3, held: 7 },
      });
      expect(await a.hold(holdOf(subject, 4))).to.deep.equal({ outcome: 'insufficient', account: { balance: 3, held: 7 } });
      expect((await allEntries(a, subject)).map((e) => e.kind)).to.deep.equal(['hold', 'grant']);
      expect(await a.hold(holdOf(subject, 3, newJobId(), { lowThreshold: 2 }))).to.deep.include({
        outcome: 'held',
        account: { balance: 0, held: 10 },
        fellLow: true,
      });
      await expectEntriesAddUp(stores(), subject);
    });

    it('credits.low once per fall, whatever lifted the balance: a fall, a release lifting it back above, a hold taking it below again report two falls; a hold while below none', async () => {
      const { a, b } = stores();
      const subject = await funded(10);
      const fell = async (hold: HoldRequest) => {
        const result = await (hold.credits % 2 ? a : b).hold({ ...hold, lowThreshold: 5 });
        return result.outcome === 'held' ? [result.account.balance, result.fellLow] : result.outcome;
      };
      const first = holdOf(subject, 6);
      expect(await fell(first), 'from 10 to 4').to.deep.equal([4, true]);
      expect(await b.release({ subject, jobId: first.jobId, ttlSeconds: TTL })).to.deep.include({
        released: 6,
        account: { balance: 10, held: 0 },
      });
      expect(await fell(holdOf(subject, 6)), 'lifted by a release, from 10 to 4 again').to.deep.equal([4, true]);
      expect(await fell(holdOf(subject, 1)), 'from 4 to 3: still below').to.deep.equal([3, false]);
      await expectEntriesAddUp(stores(), subject);
    });

    it('a hold of 0 credits is held even on a negative balance, with no entry, and settles once', async () => {
      const { a, b } = stores();
      const subject = newSubject();
      await a.grant(grantOf(subject, -5));
      const hold = holdOf(subject, 0);
      expect(await a.hold(hold)).to.deep.equal({ outcome: 'held', account: { balance: -5, held: 0 }, fellLow: false });
      expect(await b.capture({ subject, jobId: hold.jobId, credits: 0, ttlSeconds: TTL })).to.deep.include({
        outcome: 'settled',
        captured: 0,
        released: 0,
      });
      expect((await b.release({ subject, jobId: hold.jobId, ttlSeconds: TTL })).outcome).to.equal('already');
      expect((await allEntries(a, subject)).map((e) => e.kind)).to.deep.equal(['adjustment']);
    });

    it('a capture of part of a hold releases the rest in the same step; later captures and releases move nothing', async () => {
      const { a, b } = stores();
      const subject = await funded(20);
      const hold = holdOf(subject, 10);
      await a.hold(hold);
      const settle = { subject, jobId: hold.jobId, ttlSeconds: TTL };
      expect(await b.capture({ ...settle, credits: 4 })).to.deep.equal({
        outcome: 'settled',
        captured: 4,
        released: 6,
        account: { balance: 16, held: 0 },
      });
      const already = { outcome: 'already', captured: 4, released: 6, account: { balance: 16, held: 0 } };
      expect(await a.capture({ ...settle, credits: 10 })).to.deep.equal(already);
      expect(await b.release(settle)).to.deep.equal(already);
      expect((await allEntries(a, subject)).map((e) => [e.kind, e.credits, e.job_id ?? null]).sort()).to.deep.equal(
        [
          ['grant', 20, null],
          ['hold', 10, hold.jobId],
          ['capture', 4, hold.jobId],
          ['release', 6, hold.jobId],
        ].sort(),
      );
      expect(await expectEntriesAddUp(stores(), subject)).to.deep.equal({ balance: 16, held: 0 });
    });

    it('a capture keeps at most the hold; a release gives all of it back; a job without a hold settles nothing', async () => {
      const { a, b } = stores();
      const subject = await funded(9);
      const [whole, released] = [holdOf(subject, 5), holdOf(subject, 4)];
      await a.hold(whole);
      await b.hold(released);
      expect(await a.capture({ subject, jobId: whole.jobId, credits: 50, ttlSeconds: TTL })).to.deep.include({ captured: 5, released: 0 });
      expect(await b.release({ subject, jobId: released.jobId, ttlSeconds: TTL })).to.deep.equal({
        outcome: 'settled',
        captured: 0,
        released: 4,
        account: { balance: 4, held: 0 },
      });
      expect(await a.capture({ subject, jobId: released.jobId, credits: 4, ttlSeconds: TTL })).to.deep.include({
        outcome: 'already',
        captured: 0,
      });
      expect(await b.release({ subject, jobId: newJobId(), ttlSeconds: TTL })).to.deep.equal({
        outcome: 'none',
        account: { balance: 4, held: 0 },
      });
      await expectEntriesAddUp(stores(), subject);
    });

    it('a settled hold blocks a repeat of its acceptance; a new acceptance of the same job id holds again', async () => {
      const { a, b } = stores();
      const subject = await funded(10);
      const hold = holdOf(subject, 3);
      await a.hold(hold);
      await b.capture({ subject, jobId: hold.jobId, credits: 3, ttlSeconds: TTL });
      expect((await a.hold(hold)).outcome, 'the same acceptance').to.equal('exists');
      const again = { ...hold, at: new Date(Date.parse(hold.at) + 60_000).toISOString() };
      expect(await b.hold(again)).to.deep.include({ outcome: 'held', account: { balance: 4, held: 3 } });
      expect((await a.release({ subject, jobId: hold.jobId, ttlSeconds: TTL })).outcome).to.equal('settled');
      expect(await expectEntriesAddUp(stores(), subject)).to.deep.equal({ balance: 7, held: 0 });
    });

    it('entries page newest first, strictly below the cursor, unshifted by entries added meanwhile', async () => {
      const { a, b } = stores();
      const subject = newSubject();
      const ids: string[] = [];
      for (let i = 1; i <= 5; i++) {
        const made = await a.grant(grantOf(subject, i));
        if (made.outcome === 'created') ids.push(made.entry.id);
      }
      const first = await b.entries(subject, { limit: 2 });
      expect(first.map((item) => item.value.id)).to.deep.equal([ids[4], ids[3]]);
      await a.grant(grantOf(subject, 100));
      const second = await b.entries(subject, { limit: 2, before: first[1].seq });
      expect(second.map((item) => item.value.id)).to.deep.equal([ids[2], ids[1]]);
      const third = await a.entries(subject, { limit: 2, before: second[1].seq });
      expect(third.map((item) => item.value.id)).to.deep.equal([ids[0]]);
    });

    it('200 concurrent distinct grants over both handles add exactly their sum; 200 concurrent repeats of one add it once', async () => {
      const stores2 = stores();
      const subject = newSubject();
      const grants = Array.from({ length: 200 }, (_, i) => grantOf(subject, i + 1));
      const outcomes = await Promise.all(grants.map((grant, i) => (i % 2 ? stores2.a : stores2.b).grant(grant)));
      expect(outcomes.every((o) => o.outcome === 'created')).to.equal(true);
      const once = grantOf(subject, 7);
      const repeats = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? stores2.a : stores2.b).grant(once)));
      expect(repeats.filter((o) => o.outcome === 'created')).to.have.length(1);
      expect(repeats.filter((o) => o.outcome === 'replayed')).to.have.length(199);
      expect(await expectEntriesAddUp(stores2, subject)).to.deep.equal({ balance: (200 * 201) / 2 + 7, held: 0 });
      expect(await allEntries(stores2.a, subject)).to.have.length(201);
    });

    it('concurrent holds against a balance that funds exactly N: N are held, the rest refused, one fall below the threshold', async () => {
      const stores2 = stores();
      const [price, funds, attempts] = [3, 3 * 17, 60];
      const subject = await funded(funds);
      const holds = Array.from({ length: attempts }, () => holdOf(subject, price, newJobId(), { lowThreshold: 10 }));
      const results = await Promise.all(holds.map((hold, i) => (i % 2 ? stores2.a : stores2.b).hold(hold)));
      expect(results.filter((r) => r.outcome === 'held')).to.have.length(17);
      expect(results.filter((r) => r.outcome === 'insufficient')).to.have.length(attempts - 17);
      expect(results.filter((r) => r.outcome === 'held' && r.fellLow)).to.have.length(1);
      expect(await expectEntriesAddUp(stores2, subject)).to.deep.equal({ balance: 0, held: funds });
    });

    it('100 concurrent captures and releases of one hold over both handles settle it once: money moves once', async () => {
      const stores2 = stores();
      const subject = await funded(30);
      const hold = holdOf(subject, 12);
      await stores2.a.hold(hold);
      const settle = { subject, jobId: hold.jobId, ttlSeconds: TTL };
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) => {
          const store = i % 2 ? stores2.a : stores2.b;
          return i % 3 === 0 ? store.release(settle) : store.capture({ ...settle, credits: 5 });
        }),
      );
      const settled = results.filter((r) => r.outcome === 'settled');
      expect(settled).to.have.length(1);
      expect(results.filter((r) => r.outcome === 'already')).to.have.length(99);
      const { captured, released } = settled[0] as { captured: number; released: number };
      expect(captured + released).to.equal(12);
      expect(await expectEntriesAddUp(stores2, subject)).to.deep.equal({ balance: 18 + released, held: 0 });
    });
  });
}
