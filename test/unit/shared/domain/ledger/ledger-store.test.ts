import { expect } from 'chai';
import fc from 'fast-check';
import { utcDay, utcDayBefore, utcDaysBack } from '../../../../../shared/domain/ledger/ledger-store';

const DAY_MS = 86_400_000;
// 1970 to 2200, plus instants within a second of a midnight, where a stale remembered day would show.
const instant = fc.oneof(
  fc.integer({ min: 0, max: 7_258_118_400_000 }),
  fc
    .tuple(fc.integer({ min: 0, max: 84_000 }), fc.integer({ min: -1000, max: 999 }))
    .map(([day, offset]) => Math.max(0, day * DAY_MS + offset)),
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

describe('utcDayBefore and utcDaysBack', () => {
  it('any day and count: the day that many days before, the last of the days back, across months, years and leap days', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 84_000 }), fc.integer({ min: 0, max: 400 }), (dayNumber, days) => {
        const day = new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
        const expected = new Date((dayNumber - days) * DAY_MS).toISOString().slice(0, 10);
        expect(utcDayBefore(day, days)).to.equal(expected);
        const back = utcDaysBack(day, days + 1);
        expect(back).to.have.length(days + 1);
        expect([back[0], back[days]]).to.deep.equal([day, expected]);
      }),
      { numRuns: 300 },
    );
    expect(utcDayBefore('2028-03-01', 1)).to.equal('2028-02-29');
    expect(utcDaysBack('2027-01-01', 3)).to.deep.equal(['2027-01-01', '2026-12-31', '2026-12-30']);
  });
});
