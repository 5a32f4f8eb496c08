import { expect } from 'chai';
import { MemoryJobIdKeyStore } from '../../../../../shared/adapters/memory/memory-job-id-key-store';

describe('MemoryJobIdKeyStore', () => {
  it('the first key offered is kept: later offers get it back, not their own', async () => {
    const store = new MemoryJobIdKeyStore();
    expect(await store.load('key-a')).to.equal('key-a');
    expect(await store.load('key-b')).to.equal('key-a');
  });

  it('two stores (two processes): each keeps its own first key', async () => {
    const [one, two] = [new MemoryJobIdKeyStore(), new MemoryJobIdKeyStore()];
    await one.load('key-a');
    expect(await two.load('key-b')).to.equal('key-b');
  });
});
