import { expect } from 'chai';
import { MemoryCreditStore } from '../../../../../shared/adapters/memory/memory-credit-store';
import { MemoryLedgerStore } from '../../../../../shared/adapters/memory/memory-ledger-store';
import { sweepIntervalMs } from '../../../../../shared/domain/jobs/hold-sweeper';
import { fundedClaimContract } from '../../../../support/funded-claim-contract';
import { holdSweepContract, type SweepStores } from '../../../../support/hold-sweep-contract';

describe('HoldSweeper', () => {
  let stores: SweepStores;
  beforeEach(() => {
    const credits = new MemoryCreditStore();
    const ledger = new MemoryLedgerStore(credits);
    stores = { ledgerA: ledger, ledgerB: ledger, creditsA: credits, creditsB: credits };
  });
  holdSweepContract('memory', () => stores);
  fundedClaimContract('memory', () => stores);

  it('sweeps four times per orphan deadline, at least every 250 ms and at most every 30 s', () => {
    expect([1, 2, 120, 86_400].map(sweepIntervalMs)).to.deep.equal([250, 500, 30_000, 30_000]);
  });
});
