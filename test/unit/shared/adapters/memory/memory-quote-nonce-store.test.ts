import { expect } from 'chai';
import { MemoryQuoteNonceStore } from '../../../../../shared/adapters/memory/memory-quote-nonce-store';

describe('MemoryQuoteNonceStore', () => {
  it('the first answer given to a nonce stands: later calls get it back, marked not first', async () => {
    const store = new MemoryQuoteNonceStore(() => 1000);
    expect(await store.settle('n1', 'refused', 60_000)).to.deep.equal({ answer: 'refused', first: true });
    expect(await store.settle('n1', 'accepted', 60_000)).to.deep.equal({ answer: 'refused', first: false });
  });

  it('nonces are independent of each other', async () => {
    const store = new MemoryQuoteNonceStore(() => 1000);
    await store.settle('n1', 'accepted', 60_000);
    expect(await store.settle('n2', 'refused', 60_000)).to.deep.equal({ answer: 'refused', first: true });
  });

  it('once its time to live has passed, a nonce is forgotten and takes a new answer', async () => {
    let now = 1000;
    const store = new MemoryQuoteNonceStore(() => now);
    await store.settle('n1', 'accepted', 500);
    now = 1499;
    expect((await store.settle('n1', 'refused', 500)).first).to.equal(false);
    now = 1500;
    expect(await store.settle('n1', 'refused', 500)).to.deep.equal({ answer: 'refused', first: true });
  });
});
