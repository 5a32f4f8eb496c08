import { expect } from 'chai';
import { creditsText, formatTime, truncate } from '../../../../cards/kit/card-text';

describe('the card kit’s words for credits, cut text and times', () => {
  it('credits read naturally: free, 1 credit, n credits', () => {
    expect([0, 1, 5].map(creditsText)).to.deep.equal(['free', '1 credit', '5 credits']);
  });

  it('a text within its length is kept; a longer one is cut to the length with an ellipsis', () => {
    expect(truncate('short', 10)).to.equal('short');
    expect(truncate('abcdefghij', 5)).to.equal('abcd…');
  });

  it('times follow the host locale and zone; an unknown zone falls back to the browser defaults; a bad timestamp is shown as given', () => {
    expect(formatTime('2026-11-25T10:00:00.000Z', { locale: 'en-GB', timeZone: 'Asia/Tokyo' })).to.equal('25 Nov 2026, 19:00:00');
    expect(formatTime('2026-11-25T10:00:00.000Z', { timeZone: 'Not/AZone' }))
      .to.be.a('string')
      .and.not.equal('');
    expect(formatTime('yesterday')).to.equal('yesterday');
  });
});
