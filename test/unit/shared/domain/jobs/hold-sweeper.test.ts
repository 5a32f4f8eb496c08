import { MemoryCreditStore } from '../../../../../shared/adapters/memory/memory-credit-store';
import { MemoryLedgerStore } from '../../../../../shared/adapters/memory/memory-ledger-store';
import { holdSweepContract, type SweepStores } from '../../../../support/hold-sweep-contract';

describe('HoldSweeper', () => {
  let stores: SweepStores;
  beforeEach(() => {
    const credits = new MemoryCreditStore();
    const ledger = new MemoryLedgerStore(credits);
    stores = { ledgerA: ledger, ledgerB: ledger, creditsA: credits, creditsB: credits };
  });
  holdSweepContract('memory', () => stores);
});
