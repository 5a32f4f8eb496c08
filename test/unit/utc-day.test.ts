import { expect } from 'chai';
import fc from 'fast-check';
import { utcDay } from '../../shared/stores/ledger-store';

const DAY_MS = 86_400_000;
// 1970 to 2200, plus instants within a second of a midnight, where a stale remembered day would show.
const instant = fc.oneof(
  fc.integer({ min: 0, max: 7_258_118_400_000 }),
  fc.tuple(fc.integer({ min: 0, max: 84_000 }), fc.integer({ min: -1000, max: 999 })).map(([day, offset]) => Math.max(0, day * DAY_MS + offset)),
);

describe('utcDay', () => {
  it('any sequence of instants, in any order, gets the UTC date of each, across midnights both ways', () => {
    fc.assert(
      fc.property(fc.array(instant, { minLength: 1, maxLength: 40 }), (instants) => {
        for (const at of instants) expect(utcDay(at), String(at)).to.equal(new Date(at).toISOString().slice(0, 10));
      }),
      { numRuns: 500 },
    );
  });

  it('the last millisecond of a day and the first of the next, asked alternately, get their own dates', () => {
    const midnight = Date.parse('2026-11-24T00:00:00.000Z');
    for (let i = 0; i < 3; i += 1) {
      expect(utcDay(midnight - 1)).to.equal('2026-11-23');
      expect(utcDay(midnight)).to.equal('2026-11-24');
    }
  });

  it('an instant no date can hold throws, as formatting it would, whatever was asked before', () => {
    utcDay(Date.parse('2026-11-23T12:00:00.000Z'));
    expect(() => utcDay(Number.NaN)).to.throw(RangeError);
  });
});
