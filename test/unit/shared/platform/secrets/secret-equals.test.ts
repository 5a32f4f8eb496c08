import { expect } from 'chai';
import { secretMatcher, secretsMatcher } from '../../../../../shared/platform/secrets/secret-equals';

describe('secret comparison', () => {
  it('a secret matcher is true only for the exact secret', () => {
    const matches = secretMatcher('s3cret');
    expect(matches('s3cret')).to.equal(true);
    for (const other of [undefined, '', 's3cre', 's3cret ', 'S3cret', 's3cret\u0000']) expect(matches(other)).to.equal(false);
  });
});

describe('the link secret matcher during an overlap', () => {
  it('tells the current value from the previous one and refuses anything else, a prefix or an absent header included', () => {
    const match = secretsMatcher('current-secret', 'previous-secret');
    expect(match('current-secret')).to.equal('current');
    expect(match('previous-secret')).to.equal('previous');
    for (const other of ['current-secre', 'previous-secret ', '', 'other', undefined])
      expect(match(other), String(other)).to.equal(undefined);
  });

  it('without a previous value, matches only the current one', () => {
    const match = secretsMatcher('current-secret');
    expect(match('current-secret')).to.equal('current');
    expect(match('previous-secret')).to.equal(undefined);
  });
});
