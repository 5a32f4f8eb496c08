import { expect } from 'chai';
import { secretMatcher } from '../../../../../shared/platform/secrets/secret-equals';

describe('secret comparison', () => {
  it('a secret matcher is true only for the exact secret', () => {
    const matches = secretMatcher('s3cret');
    expect(matches('s3cret')).to.equal(true);
    for (const other of [undefined, '', 's3cre', 's3cret ', 'S3cret', 's3cret\u0000']) expect(matches(other)).to.equal(false);
  });
});
