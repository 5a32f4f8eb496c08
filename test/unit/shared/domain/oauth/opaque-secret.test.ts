import { expect } from 'chai';
import { digestsEqual, hashSecret, newOpaqueSecret } from '../../../../../shared/domain/oauth/opaque-secret';

describe('opaque secrets', () => {
  it('a new secret is 256 bits as base64url (43 characters), and two are never equal', () => {
    const [a, b] = [newOpaqueSecret(), newOpaqueSecret()];
    expect(a).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a, 'base64url')).to.have.length(32);
    expect(a).to.not.equal(b);
  });

  it('the hash of a secret is its SHA-256 in base64url: stable, and different for a different secret', () => {
    expect(hashSecret('abc')).to.equal('ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0');
    expect(hashSecret('abc')).to.equal(hashSecret('abc'));
    expect(hashSecret('abd')).to.not.equal(hashSecret('abc'));
  });

  it('digestsEqual: true for the same digest, false for another one or one of another length', () => {
    const digest = hashSecret('secret');
    expect(digestsEqual(digest, hashSecret('secret'))).to.equal(true);
    expect(digestsEqual(digest, hashSecret('secret2'))).to.equal(false);
    expect(digestsEqual(digest, digest.slice(0, 20))).to.equal(false);
    expect(digestsEqual(digest, '')).to.equal(false);
  });
});
