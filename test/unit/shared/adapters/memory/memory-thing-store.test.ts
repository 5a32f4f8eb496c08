import { expect } from 'chai';
import { MemoryThingStore } from '../../../../../shared/adapters/memory/memory-thing-store';

const thing = (id: string) => ({ id, name: id, notes: null, created_at: '2026-01-01T00:00:00.000Z' });

describe('MemoryThingStore', () => {
  it("list: the subject's things newest first, each with its sequence number", async () => {
    const store = new MemoryThingStore();
    await store.add('user-1', thing('t1'));
    await store.add('user-2', thing('t2'));
    await store.add('user-1', thing('t3'));
    expect(await store.list('user-1', { limit: 10 })).to.deep.equal([
      { seq: 3, value: thing('t3') },
      { seq: 1, value: thing('t1') },
    ]);
  });

  it('add keeps a copy: changing the object afterwards does not change the stored thing', async () => {
    const store = new MemoryThingStore();
    const added = thing('t1');
    await store.add('user-1', added);
    added.name = 'changed';
    expect((await store.list('user-1', { limit: 1 }))[0].value.name).to.equal('t1');
  });
});
