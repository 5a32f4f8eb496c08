import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Claim, ClaimRequest } from '../../shared/domain/ledger/ledger-store';
import { allEntries, expectEntriesAddUp, grantOf } from './credit-store-contract';
import type { SweepStores } from './hold-sweep-contract';

const RETENTION = 600;

const newSubject = () => `x402:eip155:84532:0x${randomBytes(20).toString('hex')}`;
const newJob = () => `job_${randomBytes(12).toString('base64url')}`;
const newNonce = () => `0x${randomBytes(32).toString('hex')}`;

/** A claim of `cost` for `jobId` under payload `fingerprint`, funded by a payment of `paid` credits with id `nonce`. */
function fundedClaim(subject: string, cost: number, paid: number, nonce: string, jobId = newJob(), fingerprint = 'fp'): ClaimRequest {
  return {
    subject,
    key: `key-${jobId}`,
    fingerprint,
    jobId,
    operation: 'createJob',
    cost,
    ttlSeconds: RETENTION,
    acceptedAt: new Date().toISOString(),
    hold: { grant: grantOf(subject, paid, nonce, `x402 payment for key ${jobId}`) },
  };
}

/**
 * The grant-and-hold of a settled x402 payment on any backend (docs/decisions/x402-grant-and-hold.md): the
 * ledger's claim grants the payment (by its id) and holds the job's price in one step; replayed, it grants
 * nothing twice and answers the same job; refused, the grant still lands on the account.
 */
export function fundedClaimContract(label: string, stores: () => SweepStores): void {
  describe(`funded claim (grant and hold in one step): ${label}`, function () {
    this.timeout(30_000);
    const credits = () => ({ a: stores().creditsA, b: stores().creditsB });

    it('a funded claim grants the payment and holds the price in the same step, and reports the grant it made', async () => {
      const subject = newSubject();
      const claim = await stores().ledgerA.claim(fundedClaim(subject, 3, 3, newNonce()));
      expect(claim.outcome).to.equal('created');
      expect(claim.granted?.entry).to.include({ kind: 'grant', credits: 3, balance_after: 3, held_after: 0 });
      expect(claim.account).to.deep.equal({ balance: 0, held: 3 });
      expect(await expectEntriesAddUp(credits(), subject)).to.deep.equal({ balance: 0, held: 3 });
      expect((await allEntries(stores().creditsB, subject)).map((entry) => entry.kind)).to.deep.equal(['hold', 'grant']);
    });

    it('twelve concurrent replays of one funded claim over both handles make exactly one grant and one hold, all answering one job', async () => {
      const subject = newSubject();
      const request = fundedClaim(subject, 4, 4, newNonce());
      const ledgers = [stores().ledgerA, stores().ledgerB];
      const claims: Claim[] = await Promise.all(Array.from({ length: 12 }, (_, i) => ledgers[i % 2].claim(request)));
      expect(claims.filter((claim) => claim.outcome === 'created')).to.have.length(1);
      expect(claims.filter((claim) => claim.outcome === 'replayed')).to.have.length(11);
      expect(
        claims.filter((claim) => claim.granted !== undefined),
        'the grant is reported by one claim',
      ).to.have.length(1);
      expect(await expectEntriesAddUp(credits(), subject)).to.deep.equal({ balance: 0, held: 4 });
      const kinds = (await allEntries(stores().creditsA, subject)).map((entry) => entry.kind);
      expect(kinds).to.deep.equal(['hold', 'grant']);
    });

    it('a funded claim whose key is bound to another payload is refused, and the payment still lands on the account', async () => {
      const subject = newSubject();
      const first = fundedClaim(subject, 2, 2, newNonce());
      expect((await stores().ledgerA.claim(first)).outcome).to.equal('created');
      const other = { ...fundedClaim(subject, 5, 5, newNonce(), first.jobId, 'another payload') };
      const refused = await stores().ledgerB.claim(other);
      expect(refused.outcome).to.equal('conflict');
      expect(refused.granted?.entry).to.include({ kind: 'grant', credits: 5 });
      expect(await expectEntriesAddUp(credits(), subject)).to.deep.equal({ balance: 5, held: 2 });
    });

    it('a funded claim of a key accepted before answers that job, and the new payment stays on the account for the next call', async () => {
      const subject = newSubject();
      const first = fundedClaim(subject, 2, 2, newNonce());
      await stores().ledgerA.claim(first);
      const second = await stores().ledgerB.claim({ ...first, hold: { grant: grantOf(subject, 2, newNonce(), 'a second payment') } });
      expect(second.outcome).to.equal('replayed');
      expect(second.granted?.entry.credits).to.equal(2);
      expect(await expectEntriesAddUp(credits(), subject)).to.deep.equal({ balance: 2, held: 2 });
      const next = await stores().ledgerA.claim({ ...fundedClaim(subject, 2, 2, newNonce()), hold: {} });
      expect(next.outcome, 'the next call is held from it').to.equal('created');
      expect(await stores().creditsA.account(subject)).to.deep.equal({ balance: 0, held: 4 });
    });

    it('a funded claim whose payment id names another grant writes nothing: no grant, no hold, no key', async () => {
      const subject = newSubject();
      const nonce = newNonce();
      const first = fundedClaim(subject, 1, 1, nonce);
      await stores().ledgerA.claim(first);
      const reused = fundedClaim(subject, 3, 3, nonce);
      expect((await stores().ledgerB.claim(reused)).outcome).to.equal('grant_conflict');
      expect(await stores().ledgerB.isClaimed(subject, reused.jobId)).to.equal(false);
      expect(await expectEntriesAddUp(credits(), subject)).to.deep.equal({ balance: 0, held: 1 });
    });
  });
}
