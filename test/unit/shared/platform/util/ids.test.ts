import { expect } from 'chai';
import { newId } from '../../../../../shared/platform/util/ids';

describe('ids (newId)', () => {
  it('an id is the prefix, an underscore and 22 base64url characters (128 bits)', () => {
    expect(newId('cre')).to.match(/^cre_[A-Za-z0-9_-]{22}$/);
  });

  it('ids drawn across several refills of the random pool are all distinct', () => {
    // 256 ids per fill: 2,000 ids span eight fills, so a refill that repeated bytes would show.
    const ids = Array.from({ length: 2000 }, () => newId('x'));
    expect(new Set(ids).size).to.equal(ids.length);
  });
});
