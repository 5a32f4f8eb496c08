import { expect } from 'chai';
import {
  assertCredits,
  fellBelow,
  GRANT_ID_PATTERN,
  grantFingerprint,
  grantKind,
  type HoldRecord,
  holdDecision,
  settlementSplit,
} from '../../../../../shared/domain/credits/credit-rules';

describe('credit rules', () => {
  it('a fall below the threshold is a move from at least it to below it; no threshold, no fall', () => {
    expect(fellBelow(10, 9, 10)).to.equal(true);
    expect(fellBelow(15, -3, 0)).to.equal(true);
    expect(fellBelow(9, 8, 10), 'already below').to.equal(false);
    expect(fellBelow(11, 10, 10), 'down to the threshold').to.equal(false);
    expect(fellBelow(5, 12, 10), 'a rise').to.equal(false);
    expect(fellBelow(10, 9, undefined)).to.equal(false);
  });

  it('a settlement keeps what was asked, clamped to the hold (whole credits from 0), and releases the rest', () => {
    expect(settlementSplit(10, 4)).to.deep.equal({ captured: 4, released: 6 });
    expect(settlementSplit(10, 10)).to.deep.equal({ captured: 10, released: 0 });
    expect(settlementSplit(10, 25)).to.deep.equal({ captured: 10, released: 0 });
    expect(settlementSplit(10, -3)).to.deep.equal({ captured: 0, released: 10 });
    expect(settlementSplit(10, 2.9)).to.deep.equal({ captured: 2, released: 8 });
    expect(settlementSplit(0, 5)).to.deep.equal({ captured: 0, released: 0 });
  });

  it('a hold is refused for short funds, not repeated for its acceptance or while open, and replaces a settled earlier one', () => {
    const at = '2026-05-01T10:00:00.000Z';
    const open: HoldRecord = { state: 'held', credits: 5, kept: 0, at };
    const settled: HoldRecord = { ...open, state: 'settled', kept: 5 };
    expect(holdDecision(undefined, { credits: 5, at }, 5)).to.equal('held');
    expect(holdDecision(undefined, { credits: 5, at }, 4)).to.equal('insufficient');
    expect(holdDecision(undefined, { credits: 0, at }, -7), 'a price of 0').to.equal('held');
    expect(holdDecision(open, { credits: 5, at }, 100)).to.equal('exists');
    expect(holdDecision(open, { credits: 5, at: '2026-05-02T10:00:00.000Z' }, 100), 'another acceptance while open').to.equal('exists');
    expect(holdDecision(settled, { credits: 5, at }, 100), 'its own acceptance, settled').to.equal('exists');
    expect(holdDecision(settled, { credits: 5, at: '2026-05-02T10:00:00.000Z' }, 100)).to.equal('held');
    expect(holdDecision(settled, { credits: 5, at: '2026-05-02T10:00:00.000Z' }, 1)).to.equal('insufficient');
  });

  it("a grant's fingerprint covers subject, credits and note (none and empty alike); a negative grant is an adjustment", () => {
    const base = grantFingerprint('carol@example.com', 10, 'order 7');
    expect(grantFingerprint('carol@example.com', 10, 'order 7')).to.equal(base);
    expect(grantFingerprint('dave@example.com', 10, 'order 7')).to.not.equal(base);
    expect(grantFingerprint('carol@example.com', 11, 'order 7')).to.not.equal(base);
    expect(grantFingerprint('carol@example.com', 10, 'order 8')).to.not.equal(base);
    expect(grantFingerprint('carol@example.com', 10, undefined)).to.equal(grantFingerprint('carol@example.com', 10, ''));
    expect(base).to.match(/^[A-Za-z0-9_-]{32}$/);
    expect([grantKind(5), grantKind(-5)]).to.deep.equal(['grant', 'adjustment']);
  });

  it('grant ids are 1 to 255 printable ASCII characters; hold and capture amounts whole credits from 0', () => {
    expect(GRANT_ID_PATTERN.test('cs_test_a1B2 c3')).to.equal(true);
    expect(GRANT_ID_PATTERN.test('x'.repeat(255))).to.equal(true);
    for (const bad of ['', 'x'.repeat(256), 'café', 'tab\there', 'line\n'])
      expect(GRANT_ID_PATTERN.test(bad), JSON.stringify(bad)).to.equal(false);
    expect(() => assertCredits(0, 'a hold')).to.not.throw();
    for (const bad of [-1, 1.5, Number.NaN]) expect(() => assertCredits(bad, 'a hold')).to.throw(RangeError);
  });
});
