import { createSecretKey, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { MemoryJobIdKeyStore } from '../../../../../shared/adapters/memory/memory-job-id-key-store';
import { StoredJobIdKey } from '../../../../../shared/domain/jobs/job-id-key';
import type { JobIdKeyStore } from '../../../../../shared/domain/jobs/job-id-key-store';

/** A store that fails while `down` and counts its loads. */
class FlakyStore implements JobIdKeyStore {
  loads = 0;
  down = true;
  private readonly inner = new MemoryJobIdKeyStore();
  async load(initial: string): Promise<string> {
    this.loads += 1;
    if (this.down) throw new Error('store unavailable');
    return this.inner.load(initial);
  }
}

const bytesOf = (key: { export(): Buffer }) => key.export().toString('hex');

describe('the stored job-id key (StoredJobIdKey)', () => {
  it('answers the key already stored, not the one derived from the current secret', async () => {
    const store = new MemoryJobIdKeyStore();
    const original = randomBytes(32);
    await store.load(original.toString('base64url'));
    const key = await new StoredJobIdKey(store, createSecretKey(randomBytes(32))).current();
    expect(bytesOf(key)).to.equal(original.toString('hex'));
  });

  it('a failed first load is not cached: it rejects, and the next call loads the key once and caches it', async () => {
    const store = new FlakyStore();
    const derived = createSecretKey(randomBytes(32));
    const source = new StoredJobIdKey(store, derived);
    await source.current().then(
      () => expect.fail('the load should fail while the store is down'),
      (error: Error) => expect(error.message).to.equal('store unavailable'),
    );
    store.down = false;
    const keys = await Promise.all([source.current(), source.current(), source.current()]);
    await source.current();
    expect(keys.map(bytesOf)).to.deep.equal(Array(3).fill(bytesOf(derived)));
    expect(store.loads).to.equal(2);
  });

  it('a stored value too short to be a key is refused rather than used', async () => {
    const store: JobIdKeyStore = { load: async () => 'c2hvcnQ' };
    await new StoredJobIdKey(store, createSecretKey(randomBytes(32))).current().then(
      () => expect.fail('a malformed key should be refused'),
      (error: Error) => expect(error.message).to.match(/malformed/),
    );
  });
});
