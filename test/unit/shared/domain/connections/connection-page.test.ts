import { expect } from 'chai';
import fc from 'fast-check';
import { pageConnections } from '../../../../../shared/domain/connections/connection-page';
import type { Connection } from '../../../../../shared/domain/connections/connection-store';
import { ValidationError } from '../../../../../shared/platform/errors/problems';
import { encodeCursor } from '../../../../../shared/platform/pagination/cursor';

const T = 1_800_000_000;

function conn(id: string, issuedAt: number, extra: Partial<Connection> = {}): Connection {
  return { id: `conn_${id}`, subject: 's@example.com', issuedAt, expiresAt: issuedAt + 3600, revoked: false, ...extra };
}

/** Every page from the first, following next_cursor. */
function walk(connections: Connection[], limit: number, includeRevoked = false): string[][] {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = pageConnections(connections, { includeRevoked, limit, cursor });
    pages.push(page.items.map((c) => c.connection_id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor && pages.length < 1000);
  return pages;
}

describe('a page of connections (pageConnections)', () => {
  it('orders newest first, connections of the same second by id, and shows each as the dashboard sees it', () => {
    const page = pageConnections(
      [conn('b', T), conn('a', T + 5), conn('c', T), conn('d', T - 9, { client: { id: 'cl', name: 'App' }, lastUsedAt: T })],
      { includeRevoked: false, limit: 25 },
    );
    expect(page.items.map((c) => c.connection_id)).to.deep.equal(['conn_a', 'conn_c', 'conn_b', 'conn_d']);
    expect(page.next_cursor).to.equal(null);
    expect(page.items[3]).to.deep.equal({
      connection_id: 'conn_d',
      subject: 's@example.com',
      kind: 'oauth',
      client: { client_id: 'cl', client_name: 'App' },
      created_at: new Date((T - 9) * 1000).toISOString(),
      last_used_at: new Date(T * 1000).toISOString(),
      expires_at: new Date((T - 9 + 3600) * 1000).toISOString(),
      revoked: false,
    });
    expect(page.items[0]).to.include({ kind: 'link', client: null, last_used_at: null });
  });

  it('leaves revoked connections out unless asked for', () => {
    const all = [conn('a', T), conn('b', T + 1, { revoked: true })];
    expect(pageConnections(all, { includeRevoked: false, limit: 25 }).items.map((c) => c.connection_id)).to.deep.equal(['conn_a']);
    expect(pageConnections(all, { includeRevoked: true, limit: 25 }).items.map((c) => c.connection_id)).to.deep.equal(['conn_b', 'conn_a']);
  });

  it('any set of connections, walked page by page at any limit, shows each exactly once in the order of one page', () => {
    const connections = fc.uniqueArray(
      fc.record({ id: fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), at: fc.integer({ min: 0, max: 5 }), revoked: fc.boolean() }),
      {
        selector: (c) => c.id,
        maxLength: 40,
      },
    );
    fc.assert(
      fc.property(connections, fc.integer({ min: 1, max: 7 }), fc.boolean(), (made, limit, includeRevoked) => {
        const stored = made.map((c) => conn(c.id, T + c.at, { revoked: c.revoked }));
        const pages = walk(stored, limit, includeRevoked);
        const whole = pageConnections(stored, { includeRevoked, limit: 1000 }).items.map((c) => c.connection_id);
        expect(pages.flat()).to.deep.equal(whole);
        for (const page of pages.slice(0, -1)) expect(page).to.have.length(limit);
        expect(whole).to.have.length(stored.filter((c) => includeRevoked || !c.revoked).length);
      }),
      { numRuns: 300 },
    );
  });

  it('a connection made or gone between two pages moves no other connection across the cut', () => {
    const first = pageConnections([conn('a', T + 3), conn('b', T + 2), conn('c', T + 1), conn('d', T)], {
      includeRevoked: false,
      limit: 2,
    });
    expect(first.items.map((c) => c.connection_id)).to.deep.equal(['conn_a', 'conn_b']);
    const meanwhile = [conn('new', T + 9), conn('a', T + 3), conn('c', T + 1), conn('d', T)];
    const second = pageConnections(meanwhile, { includeRevoked: false, limit: 2, cursor: first.next_cursor! });
    expect(second.items.map((c) => c.connection_id)).to.deep.equal(['conn_c', 'conn_d']);
    expect(second.next_cursor).to.equal(null);
  });

  it('refuses a cursor of another list, or one not issued at all, with a 400 on the cursor', () => {
    for (const cursor of [encodeCursor(5), 'not-a-cursor', Buffer.from('t1.5.bad id').toString('base64url')]) {
      expect(() => pageConnections([], { includeRevoked: false, limit: 5, cursor }), cursor)
        .to.throw(ValidationError)
        .with.property('errors')
        .that.deep.equals([{ path: '/query/cursor', message: 'is not a cursor this service issued' }]);
    }
  });
});
