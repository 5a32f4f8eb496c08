import { expect } from 'chai';
import { newRepairMark, repairMarkTime } from '../../../../../shared/domain/ledger/repair-mark';

describe('repair marks (a retry’s mark on the hold it repairs)', () => {
  it('a mark reads back the time it was taken at', () => {
    expect(repairMarkTime(newRepairMark(1_764_000_000_123))).to.equal(1_764_000_000_123);
  });

  it('two marks taken in the same millisecond differ, so that a sweep never mistakes one for the other', () => {
    expect(newRepairMark(5)).to.not.equal(newRepairMark(5));
  });

  it('a mark it cannot read counts as taken now, which keeps the sweep off the hold for a deadline', () => {
    for (const unreadable of ['', 'garbage', 'x:rep_1', '1e400:rep_1']) expect(repairMarkTime(unreadable, 42), unreadable).to.equal(42);
  });
});
