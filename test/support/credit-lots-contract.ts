import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { CreditStore, GrantRequest, VoidRequest } from '../../shared/domain/credits/credit-store';
import { waitFor } from '../testkit/wait-for';
import { allEntries, type CreditStores, expectEntriesAddUp, grantOf } from './credit-store-contract';

const TTL = 600;
const newSubject = () => `lots-${randomBytes(5).toString('hex')}@example.com`;
const newJob = () => `job_${randomBytes(12).toString('base64url')}`;
const newId = (prefix: string) => `${prefix}_${randomBytes(6).toString('hex')}`;

/** A grant that expires `inMs` from now (none: never). */
function expiring(subject: string, credits: number, inMs?: number): GrantRequest {
  return { ...grantOf(subject, credits), ...(inMs === undefined ? {} : { expiresAt: new Date(Date.now() + inMs).toISOString() }) };
}

function voidOf(subject: string, grantId: string, voidId = newId('void'), note?: string): VoidRequest {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([subject, grantId, note ?? null]))
    .digest('base64url');
  return { subject, grantId, voidId, fingerprint, ...(note ? { note } : {}) };
}

/** Waits until the grant's expiry is due and expires it; answers the credits it expired. */
async function expireWhenDue(store: CreditStore, subject: string, grantId: string): Promise<number> {
  return waitFor(
    async () => {
      const due = await store.dueGrants(Date.now(), 1000);
      if (!due.some((grant) => grant.subject === subject && grant.grantId === grantId)) return undefined;
      const result = await store.expire({ subject, grantId });
      return result.entry || result.credits > 0 ? result.credits : undefined;
    },
    { timeoutMs: 10_000, what: `grant ${grantId} to expire` },
  );
}

/**
 * Grants that expire and void on any backend: spends draw from the grant that expires first, an expiry or a
 * void takes only the unspent rest (never what is held or spent), each once whatever the number of callers,
 * and a release to a grant expired or voided since leaves the balance at once.
 */
export function creditLotsContract(label: string, stores: () => CreditStores): void {
  describe(`credit lots contract (expiry, void): ${label}`, function () {
    this.timeout(30_000);

    it('a hold draws from the grant that expires first: a void of it then takes only its rest, the other grant whole', async () => {
      const subject = newSubject();
      const lasting = grantOf(subject, 10);
      const soon = expiring(subject, 10, 3_600_000);
      await stores().a.grant(lasting);
      await stores().a.grant(soon);
      expect((await stores().b.hold({ subject, jobId: newJob(), credits: 4, at: new Date().toISOString() })).outcome).to.equal('held');
      const voided = await stores().a.voidGrant(voidOf(subject, soon.grantId));
      expect(voided.outcome).to.equal('created');
      expect(voided.outcome === 'created' && voided.entry).to.include({ kind: 'void', credits: 6, grant_id: soon.grantId });
      const other = await stores().b.voidGrant(voidOf(subject, lasting.grantId));
      expect(other.outcome === 'created' && other.entry.credits).to.equal(10);
      expect(await expectEntriesAddUp(stores(), subject)).to.deep.equal({ balance: 0, held: 4 });
    });

    it('past its expiry a grant is not spendable, its rest expires once as one entry, and a release to it expires at once', async () => {
      const subject = newSubject();
      const soon = expiring(subject, 10, 300);
      await stores().a.grant(soon);
      await stores().a.grant(grantOf(subject, 5));
      const job = newJob();
      expect((await stores().a.hold({ subject, jobId: job, credits: 3, at: new Date().toISOString() })).outcome).to.equal('held');
      const expired = await expireWhenDue(stores().b, subject, soon.grantId);
      expect(expired).to.equal(7);
      expect((await stores().a.expire({ subject, grantId: soon.grantId })).credits, 'a second expiry moves nothing').to.equal(0);
      expect(await stores().a.account(subject)).to.deep.equal({ balance: 5, held: 3 });
      const refused = await stores().a.hold({ subject, jobId: newJob(), credits: 6, at: new Date().toISOString() });
      expect(refused.outcome).to.equal('insufficient');
      await stores().b.release({ subject, jobId: job, ttlSeconds: TTL });
      const [last, beforeLast] = await allEntries(stores().a, subject);
      expect(beforeLast).to.include({ kind: 'release', credits: 3 });
      expect(last).to.include({ kind: 'expire', credits: 3, grant_id: soon.grantId });
      expect(await expectEntriesAddUp(stores(), subject)).to.deep.equal({ balance: 5, held: 0 });
    });

    it('a grant past its expiry but not yet swept cannot pay for a hold', async () => {
      const subject = newSubject();
      const soon = expiring(subject, 10, 200);
      await stores().a.grant(soon);
      await waitFor(async () => (await stores().a.dueGrants(Date.now(), 1000)).some((grant) => grant.grantId === soon.grantId), {
        what: 'the grant to be due',
      });
      const hold = await waitFor(
        async () => {
          const result = await stores().b.hold({ subject, jobId: newJob(), credits: 1, at: new Date().toISOString() });
          return result.outcome === 'insufficient' ? result : undefined;
        },
        { what: 'the due grant to stop paying' },
      );
      expect(hold.account).to.deep.equal({ balance: 10, held: 0 });
    });

    it('a void never takes what is held or spent; a release to a voided grant leaves at once as a void', async () => {
      const subject = newSubject();
      const grant = grantOf(subject, 10);
      await stores().a.grant(grant);
      const [kept, given] = [newJob(), newJob()];
      await stores().a.hold({ subject, jobId: kept, credits: 4, at: new Date().toISOString() });
      await stores().a.hold({ subject, jobId: given, credits: 3, at: new Date().toISOString() });
      await stores().a.capture({ subject, jobId: kept, credits: 4, ttlSeconds: TTL });
      const voided = await stores().b.voidGrant(voidOf(subject, grant.grantId));
      expect(voided.outcome === 'created' && voided.entry.credits).to.equal(3);
      expect(await stores().a.account(subject)).to.deep.equal({ balance: 0, held: 3 });
      await stores().a.release({ subject, jobId: given, ttlSeconds: TTL });
      const [last] = await allEntries(stores().b, subject);
      expect(last).to.include({ kind: 'void', credits: 3, grant_id: grant.grantId });
      expect(await expectEntriesAddUp(stores(), subject)).to.deep.equal({ balance: 0, held: 0 });
    });

    it('a void id is one void: 20 concurrent calls on both handles void once; another body conflicts; an unknown grant is unknown', async () => {
      const subject = newSubject();
      const grant = grantOf(subject, 8);
      await stores().a.grant(grant);
      const request = voidOf(subject, grant.grantId, newId('void'), 'refund 1');
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? stores().a : stores().b).voidGrant(request)));
      expect(results.filter((result) => result.outcome === 'created')).to.have.length(1);
      expect(results.filter((result) => result.outcome === 'replayed')).to.have.length(19);
      expect((await stores().a.voidGrant({ ...request, fingerprint: 'other' })).outcome).to.equal('conflict');
      expect((await stores().a.voidGrant(voidOf(subject, 'no-such-grant'))).outcome).to.equal('unknown');
      expect(await expectEntriesAddUp(stores(), subject)).to.deep.equal({ balance: 0, held: 0 });
    });

    it('a void or an expiry that takes the balance from at least the threshold to below it reports the fall; one that leaves it below reports none', async () => {
      const subject = newSubject();
      const kept = grantOf(subject, 4);
      const voided = grantOf(subject, 6);
      const soon = expiring(subject, 3, 300);
      for (const grant of [kept, voided, soon]) await stores().a.grant(grant);
      const voidedNow = await stores().b.voidGrant({ ...voidOf(subject, voided.grantId), lowThreshold: 5 });
      expect(voidedNow.outcome === 'created' && [voidedNow.account.balance, voidedNow.fellLow], 'from 13 to 7: not below').to.deep.equal([
        7,
        false,
      ]);
      const expired = await waitFor(
        async () => {
          const result = await stores().a.expire({ subject, grantId: soon.grantId }, 5);
          return result.entry ? result : undefined;
        },
        { timeoutMs: 10_000, what: `grant ${soon.grantId} to expire` },
      );
      expect([expired.account.balance, expired.fellLow], 'from 7 to 4').to.deep.equal([4, true]);
      const again = grantOf(subject, 1);
      await stores().a.grant(again);
      const below = await stores().b.voidGrant({ ...voidOf(subject, again.grantId), lowThreshold: 5 });
      expect(below.outcome === 'created' && [below.account.balance, below.fellLow], 'from 5 to 4').to.deep.equal([4, true]);
      const last = await stores().a.voidGrant({ ...voidOf(subject, kept.grantId), lowThreshold: 5 });
      expect(last.outcome === 'created' && [last.account.balance, last.fellLow], 'from 4 to 0: still below').to.deep.equal([0, false]);
      await expectEntriesAddUp(stores(), subject);
    });

    it('concurrent expiries of one grant on both handles expire it once', async () => {
      const subject = newSubject();
      const soon = expiring(subject, 9, 200);
      await stores().a.grant(soon);
      await waitFor(async () => (await stores().a.dueGrants(Date.now(), 1000)).some((grant) => grant.grantId === soon.grantId), {
        what: 'the grant to be due',
      });
      const credits = await waitFor(
        async () => {
          const results = await Promise.all(
            Array.from({ length: 10 }, (_, i) => (i % 2 ? stores().a : stores().b).expire({ subject, grantId: soon.grantId })),
          );
          const total = results.reduce((sum, result) => sum + result.credits, 0);
          return total > 0 ? total : undefined;
        },
        { what: 'the expiry' },
      );
      expect(credits).to.equal(9);
      expect(await expectEntriesAddUp(stores(), subject)).to.deep.equal({ balance: 0, held: 0 });
    });
  });
}
