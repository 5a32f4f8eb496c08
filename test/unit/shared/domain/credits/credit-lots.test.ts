import { expect } from 'chai';
import { draw, drawOrder, dueCredits, giveBack, type Lot } from '../../../../../shared/domain/credits/credit-lots';

const NOW = Date.parse('2026-05-01T00:00:00Z');

function lots(): Map<string, Lot> {
  return new Map<string, Lot>([
    ['never', { grantId: 'never', remaining: 10, seq: 1, state: 'open' }],
    ['late', { grantId: 'late', remaining: 10, expiresAt: NOW + 2_000, seq: 2, state: 'open' }],
    ['soon', { grantId: 'soon', remaining: 10, expiresAt: NOW + 1_000, seq: 3, state: 'open' }],
    ['gone', { grantId: 'gone', remaining: 10, expiresAt: NOW - 1, seq: 4, state: 'open' }],
  ]);
}

describe('credit lots', () => {
  it('spends draw from the lot that expires first, a lot without expiry last, never from one past its expiry', () => {
    expect(drawOrder(lots().values(), NOW).map((lot) => lot.grantId)).to.deep.equal(['soon', 'late', 'never']);
    expect(dueCredits(lots().values(), NOW)).to.equal(10);
  });

  it('a draw takes from each lot in order and the rest from outside any lot', () => {
    const all = lots();
    expect(draw(all.values(), 35, NOW)).to.deep.equal([
      ['soon', 10],
      ['late', 10],
      ['never', 10],
      ['', 5],
    ]);
    expect([...all.values()].map((lot) => lot.remaining)).to.deep.equal([0, 0, 0, 10]);
  });

  it('a give-back returns the last drawn first: to open lots as they were, out at once for expired or voided ones', () => {
    const all = lots();
    const allocation = draw(all.values(), 25, NOW);
    all.get('soon')!.state = 'expired';
    all.get('late')!.state = 'voided';
    const given = giveBack(all, allocation, 22);
    expect(all.get('never')!.remaining, 'the last drawn, back first').to.equal(10);
    expect(given).to.deep.equal({ voided: [['late', 10]], expired: [['soon', 7]] });
  });
});
