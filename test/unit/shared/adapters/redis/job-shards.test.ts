import { expect } from 'chai';
import fc from 'fast-check';
import { shardOf } from '../../../../../shared/adapters/redis/job-shards';

describe('shardOf (the paid-job shard of a job id)', () => {
  it('any job id and shard count: the shard is within range and the same on every call', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 64 }), fc.integer({ min: 1, max: 64 }), (id, shards) => {
        const shard = shardOf(id, shards);
        expect(shard).to.be.within(0, shards - 1);
        expect(Number.isInteger(shard)).to.equal(true);
        expect(shardOf(id, shards)).to.equal(shard);
      }),
    );
  });

  it('one shard: every job is on shard 0, the queue of releases before shards', () => {
    fc.assert(fc.property(fc.string(), (id) => shardOf(id, 1) === 0));
  });

  it('3000 job ids over 3 shards: each shard gets between 28 % and 39 % of them', () => {
    const counts = [0, 0, 0];
    for (let i = 0; i < 3000; i++) counts[shardOf(`job_${i.toString(36)}x${(i * 7919).toString(16)}`, 3)]++;
    for (const count of counts) expect(count).to.be.within(840, 1170);
  });
});
