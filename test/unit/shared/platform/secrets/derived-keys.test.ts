import { expect } from 'chai';
import { deriveKeys } from '../../../../../shared/platform/secrets/derived-keys';

const SECRET = 'a-connector-secret-of-at-least-32-chars';
const keyBytes = (keys: ReturnType<typeof deriveKeys>) =>
  [keys.tokenKey, keys.jobIdKey, keys.consentFormKey, keys.spendQuoteKey].map((key) => key.export().toString('hex'));

describe('deriveKeys', () => {
  it('one secret, derived twice: the same key id and keys (every replica agrees)', () => {
    const [a, b] = [deriveKeys(SECRET), deriveKeys(SECRET)];
    expect(a.keyId).to.equal(b.keyId);
    expect(keyBytes(a)).to.deep.equal(keyBytes(b));
  });

  it('each purpose gets its own 32-byte key, none equal to another or to the secret', () => {
    const bytes = keyBytes(deriveKeys(SECRET));
    expect(new Set(bytes).size).to.equal(4);
    for (const hex of bytes) {
      expect(hex).to.have.length(64);
      expect(hex).to.not.equal(Buffer.from(SECRET).toString('hex'));
    }
  });

  it('the key id: 9 bytes as base64url (12 characters), not containing the secret', () => {
    const { keyId } = deriveKeys(SECRET);
    expect(keyId).to.match(/^[A-Za-z0-9_-]{12}$/);
    expect(SECRET).to.not.contain(keyId);
  });

  it('another secret: another key id and every key different', () => {
    const [a, b] = [deriveKeys(SECRET), deriveKeys(`${SECRET}!`)];
    expect(a.keyId).to.not.equal(b.keyId);
    const other = keyBytes(b);
    for (const [i, hex] of keyBytes(a).entries()) expect(hex, `key ${i}`).to.not.equal(other[i]);
  });
});
