import { expect } from 'chai';
import { MemoryOAuthStateStore } from '../../../../../shared/adapters/memory/memory-oauth-state-store';

const LIMITS = { ttlSeconds: 3600, cap: 2, keepAfterGrantSeconds: 60 };

describe('MemoryOAuthStateStore', () => {
  it('put then get: the value; each kind is its own key space', async () => {
    const store = new MemoryOAuthStateStore();
    await store.put('code', 'k', 'code-value', 60);
    expect(await store.get('code', 'k')).to.equal('code-value');
    expect(await store.get('refresh', 'k')).to.equal(undefined);
  });

  it('consume: the value the first time, marked reused after; get no longer sees it; unknown: undefined', async () => {
    const store = new MemoryOAuthStateStore();
    await store.put('code', 'k', 'v', 60);
    expect(await store.consume('code', 'k')).to.deep.equal({ value: 'v', reused: false });
    expect(await store.consume('code', 'k')).to.deep.equal({ value: 'v', reused: true });
    expect(await store.get('code', 'k')).to.equal(undefined);
    expect(await store.consume('code', 'nope')).to.equal(undefined);
  });

  it('consumeMatching: consumes only when every field matches exactly; a mismatch leaves the record unused', async () => {
    const store = new MemoryOAuthStateStore();
    await store.put('code', 'k', JSON.stringify({ clientId: 'c1', redirectUri: 'https://a/cb' }), 60);
    expect(await store.consumeMatching('code', 'k', { clientId: 'c2' })).to.equal('mismatch');
    expect(await store.consumeMatching('code', 'k', { clientId: 'c1', extra: 'x' })).to.equal('mismatch');
    expect(await store.get('code', 'k')).to.be.a('string');
    expect(await store.consumeMatching('code', 'k', { clientId: 'c1' })).to.deep.include({ reused: false });
    expect(await store.consumeMatching('code', 'nope', { clientId: 'c1' })).to.equal(undefined);
  });

  it('consumeMatching on a value that is not a JSON object: a mismatch', async () => {
    const store = new MemoryOAuthStateStore();
    await store.put('code', 'k', 'not json', 60);
    expect(await store.consumeMatching('code', 'k', { a: 'b' })).to.equal('mismatch');
  });

  it('registerClient under the cap: registered, nothing evicted', async () => {
    const store = new MemoryOAuthStateStore();
    expect(await store.registerClient('a', 'A', LIMITS)).to.deep.equal({ registered: true, evicted: 0 });
    expect(await store.get('client', 'a')).to.equal('A');
  });

  it('registerClient at the cap: the oldest never-granted registration is evicted to make room', async () => {
    const store = new MemoryOAuthStateStore();
    await store.registerClient('a', 'A', LIMITS);
    await store.registerClient('b', 'B', { ...LIMITS, ttlSeconds: 7200 });
    expect(await store.registerClient('c', 'C', LIMITS)).to.deep.equal({ registered: true, evicted: 1 });
    expect([await store.get('client', 'a'), await store.get('client', 'b')]).to.deep.equal([undefined, 'B']);
  });

  it('registerClient at the cap with every grant still live: not registered, nothing evicted', async () => {
    const store = new MemoryOAuthStateStore();
    const future = Date.now() + 3_600_000;
    for (const key of ['a', 'b']) {
      await store.registerClient(key, key, LIMITS);
      expect(await store.recordClientGrant(key, `${key}-granted`, future, 60)).to.equal(true);
    }
    expect(await store.registerClient('c', 'C', LIMITS)).to.deep.equal({ registered: false, evicted: 0 });
    expect(await store.get('client', 'a')).to.equal('a-granted');
  });

  it('a registration whose grants have ended can be evicted; a pre-registered client (put) never counts', async () => {
    const store = new MemoryOAuthStateStore();
    await store.put('client', 'fixed', 'F', 0);
    await store.registerClient('a', 'A', LIMITS);
    await store.recordClientGrant('a', 'A', Date.now() - 1000, 3600);
    await store.registerClient('b', 'B', LIMITS);
    await store.recordClientGrant('b', 'B', Date.now() + 3_600_000, 60);
    expect(await store.registerClient('c', 'C', LIMITS)).to.deep.equal({ registered: true, evicted: 1 });
    expect([await store.get('client', 'a'), await store.get('client', 'fixed')]).to.deep.equal([undefined, 'F']);
  });

  it('recordClientGrant for a client that is not a registration, or gone: false', async () => {
    const store = new MemoryOAuthStateStore();
    await store.put('client', 'fixed', 'F', 0);
    expect(await store.recordClientGrant('fixed', 'X', Date.now(), 60)).to.equal(false);
    expect(await store.recordClientGrant('missing', 'X', Date.now(), 60)).to.equal(false);
    expect(await store.get('client', 'fixed')).to.equal('F');
  });
});
