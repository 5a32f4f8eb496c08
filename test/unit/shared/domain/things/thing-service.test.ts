import { expect } from 'chai';
import { MemoryThingStore } from '../../../../../shared/adapters/memory/memory-thing-store';
import { ThingService } from '../../../../../shared/domain/things/thing-service';
import { decodeCursor } from '../../../../../shared/platform/pagination/cursor';

describe('ThingService', () => {
  it('create: a new thing with an id, the name, notes or null, and the creation time', async () => {
    const service = new ThingService(new MemoryThingStore());
    const before = Date.now();
    const thing = await service.create('user-1', { name: 'Lamp' });
    expect(thing).to.include({ name: 'Lamp', notes: null });
    expect(thing.id).to.match(/^thing/);
    expect(Date.parse(thing.created_at)).to.be.within(before, Date.now());
    expect((await service.create('user-1', { name: 'Desk', notes: 'oak' })).notes).to.equal('oak');
  });

  it("list: the subject's things newest first, a cursor while more remain, none on the last page", async () => {
    const service = new ThingService(new MemoryThingStore());
    for (const name of ['a', 'b', 'c']) await service.create('user-1', { name });
    await service.create('user-2', { name: 'other' });
    const first = await service.list('user-1', 2);
    expect(first.items.map((thing) => thing.name)).to.deep.equal(['c', 'b']);
    expect(first.next_cursor).to.be.a('string');
    const second = await service.list('user-1', 2, first.next_cursor!);
    expect(second).to.deep.include({ next_cursor: null });
    expect(second.items.map((thing) => thing.name)).to.deep.equal(['a']);
  });

  it('list with exactly the limit left: no cursor, since nothing follows', async () => {
    const service = new ThingService(new MemoryThingStore());
    for (const name of ['a', 'b']) await service.create('user-1', { name });
    expect((await service.list('user-1', 2)).next_cursor).to.equal(null);
  });

  it('the cursor names the last thing shown, so the next page starts right after it', async () => {
    const service = new ThingService(new MemoryThingStore());
    for (const name of ['a', 'b', 'c']) await service.create('user-1', { name });
    expect(decodeCursor((await service.list('user-1', 1)).next_cursor!)).to.equal(3);
  });
});
