import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { CreditStore } from '../../shared/domain/credits/credit-store';
import { HoldSweeper } from '../../shared/domain/jobs/hold-sweeper';
import type { JobRecord } from '../../shared/domain/jobs/job';
import type { ClaimRequest, DueHold, LedgerStore, RepairRequest } from '../../shared/domain/ledger/ledger-store';
import { newRepairMark } from '../../shared/domain/ledger/repair-mark';
import { allEntries, expectEntriesAddUp, grantOf } from './credit-store-contract';

/** One backend's state seen through two replicas' ledgers, and a credit store to read the accounts with. */
export interface SweepStores {
  ledgerA: LedgerStore;
  ledgerB: LedgerStore;
  creditsA: CreditStore;
  creditsB: CreditStore;
}

/** The deadline these tests use (HOLD_ORPHAN_SECONDS). */
const ORPHAN_SECONDS = 120;
const RETENTION = 600;

const newSubject = () => `sweep-${randomBytes(5).toString('hex')}@example.com`;
const newJob = () => `job_${randomBytes(12).toString('base64url')}`;

/** A retry's repair mark on `claim`'s acceptance, taken at `markedMs`. */
function repairOf(claim: ClaimRequest, markedMs: number): RepairRequest {
  return { ...holdOf(claim), mark: newRepairMark(markedMs), ttlSeconds: RETENTION };
}

/** The hold `claim` made, as the sweep's index names it. */
function holdOf(claim: ClaimRequest): DueHold {
  return { subject: claim.subject, jobId: claim.jobId, at: claim.acceptedAt! };
}

/** A prepaid claim of `cost` accepted at `acceptedMs`. */
function claimOf(subject: string, cost: number, acceptedMs: number, jobId = newJob()): ClaimRequest {
  return {
    subject,
    key: `key-${jobId}`,
    fingerprint: 'fp',
    jobId,
    operation: 'createJob',
    cost,
    ttlSeconds: RETENTION,
    acceptedAt: new Date(acceptedMs).toISOString(),
    hold: {},
  };
}

/**
 * The orphan sweep on any backend: a hold whose job was never enqueued is released once its deadline has
 * passed, exactly once whatever the number of sweepers, with its key's record; a hold whose job exists is
 * left to the job. Time is the sweeper's injected clock; holds are claimed with acceptance times in the past.
 */
export function holdSweepContract(label: string, stores: () => SweepStores): void {
  describe(`orphan hold sweep: ${label}`, function () {
    this.timeout(30_000);
    const now = Date.now();
    let jobs: Map<string, JobRecord>;

    beforeEach(() => {
      jobs = new Map();
    });

    /** A sweeper at `at`; `meanwhile` runs as it looks for a hold's job, after it read the hold's repair mark. */
    function sweeper(ledger: LedgerStore, at = now, meanwhile: (jobId: string) => Promise<unknown> = async () => undefined): HoldSweeper {
      return new HoldSweeper({
        ledger,
        jobs: {
          get: async (id) => {
            await meanwhile(id);
            return jobs.get(id);
          },
        },
        orphanSeconds: ORPHAN_SECONDS,
        retentionSeconds: RETENTION,
        now: () => at,
      });
    }

    /** The job ids of every hold in the sweep's index (other tests' included: on Redis the index is shared). */
    async function dueJobIds(ledger: LedgerStore): Promise<string[]> {
      return (await ledger.dueHolds(now + 86_400_000, 1000)).map((hold) => hold.jobId);
    }

    async function funded(credits: number): Promise<string> {
      const subject = newSubject();
      expect((await stores().creditsA.grant(grantOf(subject, credits))).outcome).to.equal('created');
      return subject;
    }

    it('a hold past its deadline with no job is released as an orphaned release, its key freed and its usage refunded', async () => {
      const subject = await funded(10);
      const claim = claimOf(subject, 4, now - (ORPHAN_SECONDS + 1) * 1000);
      expect((await stores().ledgerA.claim(claim)).outcome).to.equal('created');
      expect(await stores().creditsA.account(subject)).to.deep.equal({ balance: 6, held: 4 });

      expect(await sweeper(stores().ledgerA).sweep()).to.equal(4);

      expect(await expectEntriesAddUp({ a: stores().creditsA, b: stores().creditsB }, subject)).to.deep.equal({ balance: 10, held: 0 });
      const [newest] = await allEntries(stores().creditsB, subject);
      expect(newest).to.include({ kind: 'release', credits: 4, job_id: claim.jobId, reason: 'orphaned' });
      expect(await stores().ledgerB.isClaimed(subject, claim.jobId), 'the key is free').to.equal(false);
      expect((await stores().ledgerB.usage(subject)).credits_spent).to.equal(0);
      expect(await dueJobIds(stores().ledgerB), 'gone from the index').not.to.include(claim.jobId);
    });

    it('a hold before its deadline is left open, whether or not its job exists', async () => {
      const subject = await funded(10);
      const claim = claimOf(subject, 3, now - (ORPHAN_SECONDS - 1) * 1000);
      await stores().ledgerA.claim(claim);
      expect(await sweeper(stores().ledgerA).sweep()).to.equal(0);
      expect(await stores().creditsA.account(subject)).to.deep.equal({ balance: 7, held: 3 });
      expect(await dueJobIds(stores().ledgerA), 'still indexed').to.include(claim.jobId);
      expect(await stores().ledgerA.isClaimed(subject, claim.jobId)).to.equal(true);
    });

    it('a hold past its deadline whose job was enqueued is left to the job: nothing released, the sweep forgets it', async () => {
      const subject = await funded(10);
      const claim = claimOf(subject, 5, now - (ORPHAN_SECONDS + 5) * 1000);
      await stores().ledgerA.claim(claim);
      jobs.set(claim.jobId, { id: claim.jobId, subject, created_at: claim.acceptedAt } as JobRecord);
      expect(await sweeper(stores().ledgerA).sweep()).to.equal(0);
      expect(await stores().creditsA.account(subject)).to.deep.equal({ balance: 5, held: 5 });
      expect(await dueJobIds(stores().ledgerA), 'forgotten by the index').not.to.include(claim.jobId);
    });

    it('eight sweepers on two replicas at once release each orphaned hold exactly once', async () => {
      const subject = await funded(20);
      const claims = [2, 3, 4].map((cost, i) => claimOf(subject, cost, now - (ORPHAN_SECONDS + 10 + i) * 1000));
      for (const claim of claims) expect((await stores().ledgerA.claim(claim)).outcome).to.equal('created');
      const ledgers = [stores().ledgerA, stores().ledgerB];
      const released = await Promise.all(Array.from({ length: 8 }, (_, i) => sweeper(ledgers[i % 2]).sweep()));
      expect(released.reduce((sum, credits) => sum + credits, 0)).to.equal(9);
      expect(await expectEntriesAddUp({ a: stores().creditsA, b: stores().creditsB }, subject)).to.deep.equal({ balance: 20, held: 0 });
      const releases = (await allEntries(stores().creditsA, subject)).filter((entry) => entry.kind === 'release');
      expect(releases.map((entry) => entry.credits).sort()).to.deep.equal([2, 3, 4]);
    });

    it('a retry of the key after the sweep is a fresh submit: a new hold when funded, a refusal when not', async () => {
      const subject = await funded(5);
      const first = claimOf(subject, 5, now - (ORPHAN_SECONDS + 1) * 1000);
      await stores().ledgerA.claim(first);
      await sweeper(stores().ledgerA).sweep();
      const retry = { ...first, acceptedAt: new Date(now).toISOString() };
      expect((await stores().ledgerB.claim(retry)).outcome).to.equal('created');
      expect(await stores().creditsB.account(subject)).to.deep.equal({ balance: 0, held: 5 });
      const other = claimOf(subject, 1, now);
      expect((await stores().ledgerB.claim(other)).outcome, 'no credits left: refused').to.equal('insufficient');
    });

    it('a hold a retry marked less than a deadline ago is left, still indexed; once the mark is a deadline old, it is released', async () => {
      const subject = await funded(10);
      const claim = claimOf(subject, 4, now - (ORPHAN_SECONDS + 30) * 1000);
      await stores().ledgerA.claim(claim);
      expect(await stores().ledgerB.markRepair(repairOf(claim, now - 10_000))).to.equal(true);
      expect(await stores().ledgerA.repairMarkOf(holdOf(claim))).to.be.a('string');

      // (On Redis the index is shared with the other tests: the account, not the sweep's total, says what moved.)
      await sweeper(stores().ledgerA).sweep();
      expect(await stores().creditsA.account(subject)).to.deep.equal({ balance: 6, held: 4 });
      expect(await dueJobIds(stores().ledgerA), 'still indexed').to.include(claim.jobId);

      await sweeper(stores().ledgerB, now + (ORPHAN_SECONDS - 10) * 1000).sweep();
      expect(await stores().creditsB.account(subject)).to.deep.equal({ balance: 10, held: 0 });
      expect(await stores().ledgerA.repairMarkOf(holdOf(claim)), 'the release drops the mark').to.equal(undefined);
    });

    it('a retry that marks the hold while the sweep looks for its job makes the release do nothing: held, claimed and indexed still', async () => {
      const subject = await funded(10);
      const claim = claimOf(subject, 4, now - (ORPHAN_SECONDS + 1) * 1000);
      await stores().ledgerA.claim(claim);
      const marks: boolean[] = [];
      const racing = sweeper(stores().ledgerA, now, async (jobId) => {
        if (jobId === claim.jobId) marks.push(await stores().ledgerB.markRepair(repairOf(claim, now)));
      });

      await racing.sweep();
      expect(marks).to.deep.equal([true]);
      expect(await stores().creditsA.account(subject)).to.deep.equal({ balance: 6, held: 4 });
      expect(await stores().ledgerB.isClaimed(subject, claim.jobId)).to.equal(true);
      expect(await dueJobIds(stores().ledgerB), 'still indexed, for a later pass').to.include(claim.jobId);
      expect((await allEntries(stores().creditsB, subject)).map((entry) => entry.kind)).to.deep.equal(['hold', 'grant']);
    });

    it('a repair mark for an acceptance the sweep released, or for another acceptance of the key, is refused', async () => {
      const subject = await funded(10);
      const claim = claimOf(subject, 4, now - (ORPHAN_SECONDS + 1) * 1000);
      await stores().ledgerA.claim(claim);
      expect(await stores().ledgerB.markRepair({ ...repairOf(claim, now), at: new Date(now).toISOString() })).to.equal(false);
      await sweeper(stores().ledgerA).sweep();
      expect(await stores().creditsA.account(subject)).to.deep.equal({ balance: 10, held: 0 });
      expect(await stores().ledgerB.markRepair(repairOf(claim, now))).to.equal(false);
      expect(await stores().ledgerA.repairMarkOf(holdOf(claim))).to.equal(undefined);
    });

    it('a settled hold is never released by the sweep, and a hold of a later acceptance is not released for an earlier one', async () => {
      const subject = await funded(10);
      const claim = claimOf(subject, 4, now - (ORPHAN_SECONDS + 1) * 1000);
      await stores().ledgerA.claim(claim);
      await stores().creditsA.capture({ subject, jobId: claim.jobId, credits: 4, ttlSeconds: RETENTION });
      expect(await sweeper(stores().ledgerB).sweep()).to.equal(0);
      expect(await stores().creditsA.account(subject)).to.deep.equal({ balance: 6, held: 0 });
      const stale = await stores().ledgerA.releaseOrphan({ subject, jobId: claim.jobId, at: new Date(0).toISOString(), ttlSeconds: 60 });
      expect(stale).to.equal(0);
    });
  });
}
