import { expect } from 'chai';
import { paidOperation } from '../../../../../shared/contract/operations/paid-operation';
import { perUnit } from '../../../../../shared/domain/jobs/price';
import { paidJob } from '../../../../../shared/domain/jobs/processor';
import { pages } from '../../../../support/pages-input';

describe('a paid operation declared with its price', () => {
  it('paidOperation refuses a description that, with its price and cancel sentences, is over 300 characters', () => {
    const job = paidJob({ operationId: 'longWinded', input: pages, processor: () => async () => ({}) });
    const declare = (description: string) =>
      paidOperation({
        job,
        path: '/v1/long',
        summary: 'Long',
        description,
        price: perUnit({ credits: 2, unit: 'page', field: 'pages', min: 1, max: 5 }),
      });
    expect(declare('x'.repeat(190)).description).to.have.length(190);
    // 240 characters, a space and the 67 of the price sentence, a space and the 34 of the cancel sentence.
    expect(() => declare('x'.repeat(240))).to.throw(
      /longWinded: the description with its price and cancel sentences is 343 characters \(max 300\)/,
    );
    expect(() => declare('x'.repeat(198))).to.throw(/is 301 characters/);
  });
});
