import { expect } from 'chai';
import { deriveKeys } from '../../../../../shared/platform/secrets/derived-keys';
import { KeyRing } from '../../../../../shared/platform/secrets/key-ring';

const CURRENT = 'the-current-connector-secret-32-chars-long';
const PREVIOUS = 'the-previous-connector-secret-32-chars-long';

describe('KeyRing', () => {
  it('one secret: the current keys alone, marked not previous', () => {
    const ring = KeyRing.fromSecrets(CURRENT);
    expect(ring.current.keyId).to.equal(deriveKeys(CURRENT).keyId);
    expect(ring.entries.map((entry) => [entry.keys.keyId, entry.previous])).to.deep.equal([[ring.current.keyId, false]]);
  });

  it('with a previous secret: current first, then the previous one marked previous', () => {
    const ring = KeyRing.fromSecrets(CURRENT, PREVIOUS);
    expect(ring.entries.map((entry) => [entry.keys.keyId, entry.previous])).to.deep.equal([
      [deriveKeys(CURRENT).keyId, false],
      [deriveKeys(PREVIOUS).keyId, true],
    ]);
  });

  it('byKeyId: finds the entry of a known key id, undefined for a retired or unknown one', () => {
    const ring = KeyRing.fromSecrets(CURRENT, PREVIOUS);
    expect(ring.byKeyId(deriveKeys(PREVIOUS).keyId)?.previous).to.equal(true);
    expect(ring.byKeyId(deriveKeys(CURRENT).keyId)?.previous).to.equal(false);
    expect(ring.byKeyId(deriveKeys('a-retired-secret-of-thirty-two-chars').keyId)).to.equal(undefined);
    expect(ring.byKeyId('')).to.equal(undefined);
  });
});
