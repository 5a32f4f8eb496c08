import { expect } from 'chai';
import { claimsBeside } from '../../../../../shared/domain/jobs/claim-reader';
import type { JobRecord } from '../../../../../shared/domain/jobs/job';
import type { ClaimRequest } from '../../../../../shared/domain/ledger/ledger-store';

const request: ClaimRequest & { shard: number } = {
  subject: 'alice',
  key: 'k1',
  fingerprint: 'fp',
  jobId: 'job_abc',
  operation: 'createJob',
  cost: 2,
  ttlSeconds: 60,
  shard: 3,
};

describe('claimsBeside (the claim and the job read as two calls)', () => {
  it('hands the request to the ledger’s claim and reads the claimed id on the request’s shard, answering both', async () => {
    const claimed: ClaimRequest[] = [];
    const read: Array<[string, number | undefined]> = [];
    const job = { id: 'job_abc' } as JobRecord;
    const reader = claimsBeside(
      {
        claim: async (given) => {
          claimed.push(given);
          return { outcome: 'replayed', shard: 3 };
        },
      },
      {
        get: async (id, shard) => {
          read.push([id, shard]);
          return job;
        },
      },
    );
    expect(await reader.claimAndRead(request)).to.deep.equal({ claim: { outcome: 'replayed', shard: 3 }, job });
    expect(claimed).to.deep.equal([request]);
    expect(read).to.deep.equal([['job_abc', 3]]);
  });

  it('answers no job when the queue has none under the id', async () => {
    const reader = claimsBeside({ claim: async () => ({ outcome: 'created', shard: 3 }) }, { get: async () => undefined });
    expect(await reader.claimAndRead(request)).to.deep.equal({ claim: { outcome: 'created', shard: 3 }, job: undefined });
  });
});
