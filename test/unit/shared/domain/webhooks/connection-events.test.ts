import { expect } from 'chai';
import { MemoryConnectionStore } from '../../../../../shared/adapters/memory/memory-connection-store';
import { withConnectionEvents } from '../../../../../shared/domain/webhooks/connection-events';
import type { EventQueue } from '../../../../../shared/domain/webhooks/event-queue';
import { liveConnection } from '../../../../support/connection-fixture';

/** A store with events on a recording queue; `log` lists the events and the writes in the order they happened. */
function eventful(enabled = true) {
  const log: string[] = [];
  const inner = new MemoryConnectionStore();
  const queue: EventQueue = {
    enabled,
    enqueue: async (event) => {
      log.push(`${event.type} ${event.ref}`);
    },
    close: async () => {},
  };
  const create = inner.create.bind(inner);
  inner.create = async (connection) => {
    log.push(`write ${connection.id}`);
    return create(connection);
  };
  return { store: withConnectionEvents(inner, queue), inner, log };
}

describe('withConnectionEvents', () => {
  it('no receiver: the plain store itself, nothing recorded', () => {
    const { store, inner } = eventful(false);
    expect(store).to.equal(inner);
  });

  it('create: connection.created is recorded before the write', async () => {
    const { store, log } = eventful();
    await store.create(liveConnection('c1'));
    expect(log).to.deep.equal(['connection.created c1', 'write c1']);
    expect((await store.get('c1'))?.id).to.equal('c1');
  });

  it('revoke of a live connection: one connection.revoked, then the revocation (1)', async () => {
    const { store, log } = eventful();
    await store.create(liveConnection('c1'));
    expect(await store.revoke('c1')).to.equal(1);
    expect(log.slice(2)).to.deep.equal(['connection.revoked c1']);
    expect((await store.get('c1'))?.revoked).to.equal(true);
  });

  it('revoke of an unknown or already revoked connection: no event, 0', async () => {
    const { store, log } = eventful();
    await store.create(liveConnection('c1', 'user-1', { revoked: true }));
    expect([await store.revoke('c1'), await store.revoke('nope')]).to.deep.equal([0, 0]);
    expect(log).to.deep.equal(['connection.created c1', 'write c1']);
  });

  it('revokeSubject: one event per live connection of the subject, each revoked, the count returned', async () => {
    const { store, log } = eventful();
    for (const connection of [liveConnection('a1'), liveConnection('a2'), liveConnection('b1', 'user-2')]) await store.create(connection);
    expect(await store.revokeSubject('user-1')).to.equal(2);
    expect(log.filter((line) => line.startsWith('connection.revoked')).sort()).to.deep.equal([
      'connection.revoked a1',
      'connection.revoked a2',
    ]);
    expect((await store.get('b1'))?.revoked).to.equal(false);
  });

  it('touch, list and liveIds: passed to the store, no event', async () => {
    const { store, log } = eventful();
    await store.create(liveConnection('c1'));
    await store.touch('c1', 1000);
    expect((await store.list('user-1')).map((c) => c.lastUsedAt)).to.deep.equal([1000]);
    expect(await store.liveIds('user-1')).to.deep.equal(['c1']);
    expect(log).to.have.length(2);
  });
});
