import { expect } from 'chai';
import * as z from 'zod';
import { checkPriceAgainstInput } from '../../../../../shared/contract/operations/price-schema-check';
import { customPrice, fixedPrice, perLength, perUnit, priceTable } from '../../../../../shared/domain/jobs/price';
import { pages } from '../../../../support/pages-input';

describe('a price rule checked against the input schema when the operation is declared', () => {
  it('passes a rule whose field and bounds are the schema’s, for every kind', () => {
    const text = z.strictObject({ text: z.string().min(1).max(20_000) });
    const words = z.strictObject({ text: z.string().min(1).max(2000) });
    const quality = z.strictObject({ quality: z.enum(['draft', 'premium']) });
    expect(() => checkPriceAgainstInput('op', fixedPrice(1), pages)).to.not.throw();
    expect(() => checkPriceAgainstInput('op', perUnit({ credits: 2, unit: 'page', field: 'pages', min: 1, max: 5 }), pages)).to.not.throw();
    expect(() => checkPriceAgainstInput('op', perLength({ credits: 3, field: 'text', block: 1000, max: 20 }), text)).to.not.throw();
    expect(() =>
      checkPriceAgainstInput('op', perLength({ credits: 1, field: 'text', measure: 'words', block: 100, max: 10 }), words),
    ).to.not.throw();
    expect(() => checkPriceAgainstInput('op', priceTable('quality', { draft: 1, premium: 5 }), quality)).to.not.throw();
  });

  it('refuses a rule whose field is missing, optional, of another type, or bounded otherwise than the rule', () => {
    const rule = (field: string, max = 5) => perUnit({ credits: 2, unit: 'page', field, min: 1, max });
    expect(() => checkPriceAgainstInput('op', rule('missing'), pages)).to.throw(/op: .*input.missing must be a required field/);
    expect(() => checkPriceAgainstInput('op', rule('pages'), z.strictObject({ pages: z.int().min(1).max(5).optional() }))).to.throw(
      /required field/,
    );
    expect(() => checkPriceAgainstInput('op', rule('topic'), pages)).to.throw(/integer with minimum 1 and maximum 5/);
    expect(() => checkPriceAgainstInput('op', rule('pages', 6), pages)).to.throw(/maximum 6/);
    expect(() =>
      checkPriceAgainstInput(
        'op',
        perLength({ credits: 3, field: 'text', block: 1000, max: 20 }),
        z.strictObject({ text: z.string().min(1).max(25_000) }),
      ),
    ).to.throw(/25000 characters, 25 blocks; the rule says 20/);
    expect(() =>
      checkPriceAgainstInput(
        'op',
        perLength({ credits: 3, field: 'text', block: 1000, max: 20 }),
        z.strictObject({ text: z.string().max(20_000) }),
      ),
    ).to.throw(/set minLength/);
    expect(() =>
      checkPriceAgainstInput('op', priceTable('quality', { draft: 1 }), z.strictObject({ quality: z.enum(['draft', 'premium']) })),
    ).to.throw(/enum of exactly draft/);
  });

  it('refuses a custom rule whose inputs at the ends are not valid inputs', () => {
    const images = z.strictObject({ images: z.int().min(1).max(100) });
    const rule = (max: number) =>
      customPrice<{ images: number }>({
        text: 'Costs 1 credit per image.',
        min: 1,
        max,
        charge: ({ images }) => images,
        ends: { min: { images: 1 }, max: { images: max } },
      });
    expect(() => checkPriceAgainstInput('op', rule(100), images)).to.not.throw();
    expect(() => checkPriceAgainstInput('op', rule(200), images)).to.throw(/the input at the max end is not a valid input/);
  });
});
