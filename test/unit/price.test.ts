import { expect } from 'chai';
import { fixedPrice, perUnit, priceOf, priceRange, priceStatement } from '../../shared/domain/jobs/price';
import { ValidationError } from '../../shared/platform/errors/validation-error';

const pages = () => perUnit({ credits: 2, unit: 'page', field: 'pages', min: 1, max: 5 });

describe('price rules', () => {
  it('a fixed price charges its credits whatever the input, and states itself as today ("1 credit", "3 credits")', () => {
    expect(priceOf(fixedPrice(1), {})).to.equal(1);
    expect(priceOf(fixedPrice(3), { pages: 99 })).to.equal(3);
    expect(priceRange(fixedPrice(3))).to.deep.equal({ min: 3, max: 3 });
    expect(priceStatement(fixedPrice(1))).to.equal('1 credit');
    expect(priceStatement(fixedPrice(3))).to.equal('3 credits');
  });

  it('a per-unit price charges credits times the field for every count in range, and states the rule and its range', () => {
    const rule = pages();
    expect([1, 2, 3, 4, 5].map((n) => priceOf(rule, { pages: n }))).to.deep.equal([2, 4, 6, 8, 10]);
    expect(priceRange(rule)).to.deep.equal({ min: 2, max: 10 });
    expect(priceStatement(rule)).to.equal('2 credits per page (input.pages, 1 to 5), so 2 to 10 credits');
    expect(priceStatement(perUnit({ credits: 1, unit: 'page', field: 'pages', min: 1, max: 1 }))).to.equal(
      '1 credit per page (input.pages, 1 to 1), so 1 to 1 credit',
    );
  });

  it('a per-unit price refuses with a 400 an input whose field is missing, not an integer, or out of range', () => {
    for (const input of [{}, { pages: 0 }, { pages: 6 }, { pages: 2.5 }, { pages: '3' }, { pages: null }, { pages: Number.NaN }]) {
      let thrown: unknown;
      try {
        priceOf(pages(), input);
      } catch (error) {
        thrown = error;
      }
      expect(thrown, JSON.stringify(input)).to.be.instanceOf(ValidationError);
      expect((thrown as ValidationError).status).to.equal(400);
    }
  });

  it('declaring a rule with a negative, fractional or inverted bound, or a unit or field that is not a plain word, throws at start-up', () => {
    expect(() => fixedPrice(-1)).to.throw(/credits/);
    expect(() => fixedPrice(1.5)).to.throw(/credits/);
    expect(() => perUnit({ credits: 2, unit: 'page', field: 'pages', min: 5, max: 1 })).to.throw(/above max/);
    expect(() => perUnit({ credits: 2, unit: 'Page<script>', field: 'pages', min: 1, max: 5 })).to.throw(/unit/);
    expect(() => perUnit({ credits: 2, unit: 'page', field: 'a.b', min: 1, max: 5 })).to.throw(/field/);
  });
});
