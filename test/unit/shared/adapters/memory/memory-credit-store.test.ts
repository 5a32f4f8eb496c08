import { MemoryCreditStore } from '../../../../../shared/adapters/memory/memory-credit-store';
import { creditLotsContract } from '../../../../support/credit-lots-contract';
import { type CreditStores, creditStoreContract } from '../../../../support/credit-store-contract';

describe('MemoryCreditStore', () => {
  let stores: CreditStores;
  beforeEach(() => {
    const store = new MemoryCreditStore();
    stores = { a: store, b: store };
  });
  creditStoreContract('memory', () => stores);
  creditLotsContract('memory', () => stores);
});
