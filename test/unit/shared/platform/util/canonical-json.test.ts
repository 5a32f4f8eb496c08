import fc from 'fast-check';
import { canonicalJson } from '../../../../../shared/platform/util/canonical-json';

describe('payload fingerprints: canonical JSON', () => {
  it('the canonical form ignores key order at every depth', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        return canonicalJson(object) === canonicalJson(reversed);
      }),
    );
  });
});
