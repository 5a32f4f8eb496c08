import { expect } from 'chai';
import { MemoryRateLimitStore } from '../../../../../shared/adapters/memory/memory-rate-limit-store';
import { waitFor } from '../../../../testkit/wait-for';

describe('MemoryRateLimitStore', () => {
  it('hits on one key count up from 1 within its window; another key has its own window', async () => {
    const store = new MemoryRateLimitStore();
    expect((await store.hit('ip:a', 60)).count).to.equal(1);
    const second = await store.hit('ip:a', 60);
    expect(second.count).to.equal(2);
    expect(second.resetInSeconds).to.be.within(1, 60);
    expect((await store.hit('ip:other', 60)).count).to.equal(1);
  });

  it('100 concurrent hits on one key each get a different count, 1 to 100', async () => {
    const store = new MemoryRateLimitStore();
    const windows = await Promise.all(Array.from({ length: 100 }, () => store.hit('ip:burst', 60)));
    expect(windows.map((w) => w.count).sort((x, y) => x - y)).to.deep.equal(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('a window that has ended starts again at 1', async () => {
    const store = new MemoryRateLimitStore();
    await store.hit('ip:b', 1);
    expect((await store.hit('ip:b', 1)).count).to.equal(2);
    await waitFor(async () => (await store.hit('ip:b', 1)).count === 1, { what: 'the one-second window to end' });
  });
});
