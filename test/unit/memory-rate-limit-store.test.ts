import { expect } from 'chai';
import { MemoryRateLimitStore } from '../../shared/adapters/memory/memory-rate-limit-store';
import { waitFor } from '../../testkit/wait-for';

describe('MemoryRateLimitStore', () => {
  it('peek reports the open window without counting a hit, and nothing for an unused key', async () => {
    const store = new MemoryRateLimitStore();
    expect(await store.peek('ip:a')).to.equal(undefined);
    await store.hit('ip:a', 60);
    await store.hit('ip:a', 60);
    expect(await store.peek('ip:a')).to.deep.include({ count: 2 });
    expect(await store.peek('ip:a')).to.deep.include({ count: 2 });
    expect((await store.hit('ip:a', 60)).count).to.equal(3);
  });

  it('peek reports nothing once the window has ended', async () => {
    const store = new MemoryRateLimitStore();
    await store.hit('ip:b', 1);
    await waitFor(async () => (await store.peek('ip:b')) === undefined, { what: 'the one-second window to end' });
    expect((await store.hit('ip:b', 1)).count).to.equal(1);
  });
});
