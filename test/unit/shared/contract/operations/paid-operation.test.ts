import { expect } from 'chai';
import { paidOperation } from '../../../../../shared/contract/operations/paid-operation';
import { assertRegistryRules } from '../../../../../shared/contract/operations/registry-rules';
import { perUnit } from '../../../../../shared/domain/jobs/price';
import { paidJob } from '../../../../../shared/domain/jobs/processor';
import { pages } from '../../../../support/pages-input';

describe('a paid operation declared with its price', () => {
  const job = paidJob({ operationId: 'longWinded', input: pages, processor: () => async () => ({}) });
  const declare = (description: string, max = 5) =>
    paidOperation({
      job,
      path: '/v1/long',
      summary: 'Long',
      description,
      price: perUnit({ credits: 2, unit: 'page', field: 'pages', min: 1, max }),
    });

  it('paidOperation declares a description over 300 characters with its price without throwing, so a test run goes on', () => {
    expect(declare('x'.repeat(190)).description).to.have.length(190);
    expect(declare('x'.repeat(240)).description).to.have.length(240);
  });

  it('the registry rules the API checks at start refuse a description that, with its price and cancel sentences, is over 300 characters', () => {
    // 240 characters, a space and the 67 of the price sentence, a space and the 34 of the cancel sentence.
    const long = /longWinded: the description with its price and cancel sentences is 343 characters \(max 300\)/;
    expect(() => assertRegistryRules([declare('x'.repeat(240))])).to.throw(long);
    expect(() => assertRegistryRules([declare('x'.repeat(198))])).to.throw(/is 301 characters/);
  });

  it('the registry rules refuse a price rule whose range the input schema does not bound, naming the operation', () => {
    expect(() => assertRegistryRules([declare('Short.', 9)])).to.throw(/longWinded: the price rule does not fit the input schema/);
  });
});
