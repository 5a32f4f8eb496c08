import { expect } from 'chai';
import fc from 'fast-check';
import { ValidationError } from '../../../../../shared/platform/errors/problems';
import { decodeCursor, encodeCursor } from '../../../../../shared/platform/pagination/cursor';

describe('cursors', () => {
  it('any sequence number survives an encode/decode round trip', () => {
    fc.assert(fc.property(fc.nat({ max: 999_999_999_999_999 }), (seq) => decodeCursor(encodeCursor(seq)) === seq));
  });

  it('any string that was not issued by encodeCursor is refused with a 400', () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        fc.pre(!/^v1\.\d{1,15}$/.test(Buffer.from(text, 'base64url').toString('utf8')));
        expect(() => decodeCursor(text)).to.throw(ValidationError);
      }),
    );
  });
});
