import { expect } from 'chai';
import { modelDescription, statesPrice } from '../../../../../shared/contract/operations/model-description';
import {
  combinedPrice,
  customPrice,
  fixedPrice,
  lengthOf,
  type PriceRule,
  perLength,
  perUnit,
  priceOf,
  priceRange,
  priceRuleProblem,
  priceStatement,
  priceTable,
  priceText,
  publishedPrice,
} from '../../../../../shared/domain/jobs/price';
import { ValidationError } from '../../../../../shared/platform/errors/problems';
import { REPORT_X_COST } from '../../../../support/report-price';

const pages = () => perUnit({ credits: 2, unit: 'page', field: 'pages', min: 1, max: 5 });
const characters = () => perLength({ credits: 3, field: 'text', block: 1000, max: 20 });
const words = () => perLength({ credits: 1, field: 'text', measure: 'words', block: 100, max: 10 });
const quality = () => priceTable('quality', { draft: 1, standard: 3, premium: 10 });
/** The report: the credits of its depth plus 1 per source URL (a list of 0 to 16), so 2 to 22. */
const report = () =>
  combinedPrice(priceTable('depth', { quick: 2, deep: 6 }), perUnit({ credits: 1, unit: 'source URL', field: 'sources', min: 0, max: 16 }));
const urls = (n: number) => Array.from({ length: n }, (_, i) => `https://example.com/${i}`);
/** 1 credit per 10 images begun, at least 2: the images field is 1..200. */
const images = () =>
  customPrice<{ images: number }>({
    text: 'Costs 1 credit per 10 images begun, at least 2 credits.',
    min: 2,
    max: 20,
    charge: ({ images }) => Math.max(2, Math.ceil(images / 10)),
    ends: { min: { images: 1 }, max: { images: 200 } },
  });

/** The 400 a rule answers for `input`; fails when it prices it. */
function refusal(rule: PriceRule, input: unknown): ValidationError {
  try {
    priceOf(rule, input);
  } catch (error) {
    expect(error, JSON.stringify(input)).to.be.instanceOf(ValidationError);
    expect((error as ValidationError).status).to.equal(400);
    return error as ValidationError;
  }
  throw new Error(`priced ${JSON.stringify(input)}`);
}

describe('price rules', () => {
  it('a fixed price charges its credits whatever the input, and states itself as today ("1 credit", "3 credits")', () => {
    expect(priceOf(fixedPrice(1), {})).to.equal(1);
    expect(priceOf(fixedPrice(3), { pages: 99 })).to.equal(3);
    expect(priceRange(fixedPrice(3))).to.deep.equal({ min: 3, max: 3 });
    expect(priceStatement(fixedPrice(1))).to.equal('1 credit');
    expect(priceStatement(fixedPrice(3))).to.equal('3 credits');
    expect(publishedPrice(fixedPrice(1))).to.deep.equal({ kind: 'fixed', credits: 1, text: 'Costs 1 credit.', min: 1, max: 1 });
  });

  it('a per-unit price charges credits times the field for every count in range, and states the rule and its range', () => {
    const rule = pages();
    expect([1, 2, 3, 4, 5].map((n) => priceOf(rule, { pages: n }))).to.deep.equal([2, 4, 6, 8, 10]);
    expect(priceRange(rule)).to.deep.equal({ min: 2, max: 10 });
    expect(priceStatement(rule)).to.equal('2 credits per page (input.pages, 1 to 5), so 2 to 10 credits');
    expect(priceStatement(perUnit({ credits: 1, unit: 'page', field: 'pages', min: 1, max: 1 }))).to.equal(
      '1 credit per page (input.pages, 1 to 1), so 1 to 1 credit',
    );
    expect(publishedPrice(rule)).to.deep.equal(REPORT_X_COST);
  });

  it('a per-unit price refuses with a 400 an input whose field is missing, not an integer, or out of range', () => {
    for (const input of [{}, { pages: 0 }, { pages: 6 }, { pages: 2.5 }, { pages: '3' }, { pages: null }, { pages: Number.NaN }]) {
      expect(refusal(pages(), input).errors).to.deep.equal([{ path: '/body/input/pages', message: 'must be an integer from 1 to 5' }]);
    }
  });

  it('a per-length price charges per started block of characters, counted as code points, at both ends of its range', () => {
    const rule = characters();
    expect(priceOf(rule, { text: 'x' })).to.equal(3);
    expect(priceOf(rule, { text: 'x'.repeat(1000) })).to.equal(3);
    expect(priceOf(rule, { text: 'x'.repeat(1001) })).to.equal(6);
    expect(priceOf(rule, { text: 'x'.repeat(20_000) })).to.equal(60);
    // An emoji is one character (two UTF-16 units), as JSON Schema's maxLength counts it.
    expect(priceOf(rule, { text: '😀'.repeat(1000) })).to.equal(3);
    expect(priceRange(rule)).to.deep.equal({ min: 3, max: 60 });
    expect(priceText(rule)).to.equal('Costs 3 credits per started 1,000 characters of input.text, so 3 to 60 credits.');
    expect(publishedPrice(rule)).to.deep.include({
      kind: 'per-length',
      per_unit: 3,
      unit: '1000 characters',
      field: 'input.text',
      measure: 'characters',
      block: 1000,
      min_units: 1,
      max_units: 20,
    });
    for (const input of [{ text: '' }, { text: 'x'.repeat(20_001) }, { text: 42 }, {}]) refusal(rule, input);
  });

  it('a per-length price in words counts runs of non-space characters', () => {
    expect(lengthOf('  one two\tthree\nfour ', 'words')).to.equal(4);
    expect(lengthOf('', 'words')).to.equal(0);
    const rule = words();
    expect(priceOf(rule, { text: 'word '.repeat(100) })).to.equal(1);
    expect(priceOf(rule, { text: 'word '.repeat(101) })).to.equal(2);
    expect(priceStatement(rule)).to.equal('1 credit per started 100 words of input.text, so 1 to 10 credits');
    refusal(rule, { text: '   ' });
  });

  it('a table price charges the credits of the enum value, refuses any other value, and states every entry', () => {
    const rule = quality();
    expect(['draft', 'standard', 'premium'].map((value) => priceOf(rule, { quality: value }))).to.deep.equal([1, 3, 10]);
    expect(priceRange(rule)).to.deep.equal({ min: 1, max: 10 });
    expect(priceStatement(rule)).to.equal('1 to 10 credits by input.quality (draft 1, standard 3, premium 10)');
    expect(publishedPrice(rule)).to.deep.include({
      kind: 'table',
      field: 'input.quality',
      table: { draft: 1, standard: 3, premium: 10 },
    });
    for (const value of ['deluxe', 'toString', '__proto__', 1]) refusal(rule, { quality: value });
  });

  it('a per-unit price counts the items of a list field as its units, and refuses a list out of range naming the items', () => {
    const rule = perUnit({ credits: 1, unit: 'source URL', field: 'sources', min: 0, max: 3 });
    expect([0, 1, 3].map((n) => priceOf(rule, { sources: urls(n) }))).to.deep.equal([0, 1, 3]);
    expect(refusal(rule, { sources: urls(4) }).errors).to.deep.equal([
      { path: '/body/input/sources', message: 'must hold from 0 to 3 items' },
    ]);
  });

  it('a combined price adds its terms for every input in range (the depth’s credits plus 1 per source: 2 to 22), and states each term once with the range', () => {
    const rule = report();
    for (const [depth, base] of [
      ['quick', 2],
      ['deep', 6],
    ] as const)
      for (let n = 0; n <= 16; n += 1) expect(priceOf(rule, { depth, sources: urls(n) }), `${depth}, ${n}`).to.equal(base + n);
    expect(priceRange(rule)).to.deep.equal({ min: 2, max: 22 });
    expect(priceText(rule)).to.equal(
      'Costs the credits of input.depth (quick 2, deep 6) plus 1 credit per source URL (input.sources, 0 to 16), so 2 to 22 credits.',
    );
    expect(publishedPrice(rule)).to.deep.equal({
      kind: 'combined',
      terms: [
        { kind: 'table', field: 'input.depth', table: { quick: 2, deep: 6 }, min: 2, max: 6 },
        { kind: 'per-unit', per_unit: 1, unit: 'source URL', field: 'input.sources', min_units: 0, max_units: 16, min: 0, max: 16 },
      ],
      text: priceText(rule),
      min: 2,
      max: 22,
    });
  });

  it('a combined price refuses an input one of its terms cannot price, naming that term’s field at the path given', () => {
    expect(refusal(report(), { depth: 'epic', sources: [] }).errors).to.deep.equal([
      { path: '/body/input/depth', message: 'must be one of quick, deep' },
    ]);
    try {
      priceOf(report(), { depth: 'quick', sources: urls(17) }, '/body');
      expect.fail('priced 17 sources');
    } catch (error) {
      expect((error as ValidationError).errors).to.deep.equal([{ path: '/body/sources', message: 'must hold from 0 to 16 items' }]);
    }
  });

  it('a combined price declared with one term, a custom term, two terms on one field or a term out of range keeps that problem instead of throwing', () => {
    const sources = perUnit({ credits: 1, unit: 'source', field: 'sources', min: 0, max: 16 });
    expect(priceRuleProblem(report())).to.equal(undefined);
    expect(priceRuleProblem(combinedPrice(sources))).to.match(/give 2 to 4 terms, got 1/);
    expect(priceRuleProblem(combinedPrice(sources, images() as never))).to.match(/term 2 is a custom rule/);
    expect(priceRuleProblem(combinedPrice(sources, perUnit({ credits: 2, unit: 'source', field: 'sources', min: 0, max: 1 })))).to.match(
      /two terms read input.sources/,
    );
    expect(
      priceRuleProblem(combinedPrice(fixedPrice(1), perUnit({ credits: -1, unit: 'source', field: 'sources', min: 0, max: 2 }))),
    ).to.match(/term 2: price: credits must be a non-negative integer, got -1/);
  });

  it('a custom price publishes its own sentence and range, charges by its function, and refuses a charge outside its range', () => {
    const rule = images();
    expect(priceOf(rule, { images: 1 })).to.equal(2);
    expect(priceOf(rule, { images: 35 })).to.equal(4);
    expect(priceOf(rule, { images: 200 })).to.equal(20);
    expect(publishedPrice(rule)).to.deep.equal({
      kind: 'custom',
      text: 'Costs 1 credit per 10 images begun, at least 2 credits.',
      min: 2,
      max: 20,
    });
    expect(priceStatement(rule)).to.equal('2 to 20 credits');
    // A schema that lets through more images than the rule was proven for is refused rather than overcharged.
    refusal(rule, { images: 500 });
  });

  it('a custom price whose inputs at the ends do not cost its published min and max is declared with that problem, not thrown', () => {
    const options = {
      text: 'Costs 1 credit per image.',
      min: 1,
      max: 10,
      charge: ({ images }: { images: number }) => images,
      ends: { min: { images: 1 }, max: { images: 10 } },
    };
    expect(customPrice(options).max).to.equal(10);
    expect(priceRuleProblem(customPrice({ ...options, max: 12 }))).to.match(/max end costs 10, not 12/);
    expect(priceRuleProblem(customPrice({ ...options, ends: { min: { images: 2 }, max: { images: 10 } } }))).to.match(
      /min end costs 2, not 1/,
    );
    expect(priceRuleProblem(customPrice({ ...options, text: 'two\nlines.' }))).to.match(/one sentence/);
  });

  it('a rule declared with a negative, fractional or inverted bound, or a unit, field or value that is not a plain word, keeps that problem instead of throwing', () => {
    expect(priceRuleProblem(fixedPrice(1))).to.equal(undefined);
    expect(priceRuleProblem(fixedPrice(-1))).to.match(/credits/);
    expect(priceRuleProblem(fixedPrice(1.5))).to.match(/credits/);
    expect(priceRuleProblem(perUnit({ credits: 2, unit: 'page', field: 'pages', min: 5, max: 1 }))).to.match(/above max/);
    expect(priceRuleProblem(perUnit({ credits: 2, unit: 'Page<script>', field: 'pages', min: 1, max: 5 }))).to.match(/unit/);
    expect(priceRuleProblem(perUnit({ credits: 2, unit: 'page', field: 'a.b', min: 1, max: 5 }))).to.match(/field/);
    expect(priceRuleProblem(perLength({ credits: 1, field: 'text', block: 0, max: 5 }))).to.match(/block/);
    expect(priceRuleProblem(priceTable('quality', {}))).to.match(/empty/);
    expect(priceRuleProblem(priceTable('quality', { 'a b': 1 }))).to.match(/plain word/);
  });
});

describe('the description a model reads', () => {
  it('is the text with the price sentence appended, unless the text states it already (in any case, without its period)', () => {
    const text = 'Writes a report.';
    expect(modelDescription({ description: text })).to.equal(text);
    expect(modelDescription({ description: text, price: pages() })).to.equal(
      'Writes a report. Costs 2 credits per page (input.pages, 1 to 5), so 2 to 10 credits.',
    );
    const stated = 'Starts a paid job that costs 1 credit, charged once.';
    expect(statesPrice(stated, fixedPrice(1))).to.equal(true);
    expect(modelDescription({ description: stated, price: fixedPrice(1) })).to.equal(stated);
    // "costs 1 credit" is not "costs 11 credits": a different price is appended.
    expect(modelDescription({ description: 'It costs 3 credits.', price: fixedPrice(1) })).to.equal('It costs 3 credits. Costs 1 credit.');
  });
});

describe('a price rule typed by its input', () => {
  it('a rule typed by its input names a field of the right type, or does not compile (checked by tsc, run by npm run typecheck)', () => {
    type Input = { topic: string; pages: number; quality: 'draft' | 'fine'; sources: string[] };
    const rules: Array<PriceRule<Input>> = [
      perUnit({ credits: 2, unit: 'page', field: 'pages', min: 1, max: 5 }),
      perUnit({ credits: 1, unit: 'source', field: 'sources', min: 0, max: 3 }),
      combinedPrice(
        priceTable('quality', { draft: 1, fine: 2 }),
        perUnit({ credits: 1, unit: 'source', field: 'sources', min: 0, max: 3 }),
      ),
      // @ts-expect-error: a combined term reads a field of the right type too (topic is no count)
      combinedPrice(fixedPrice(1), perUnit({ credits: 1, unit: 'page', field: 'topic', min: 0, max: 3 })),
      perLength({ credits: 1, field: 'topic', block: 10, max: 2 }),
      priceTable('quality', { draft: 1, fine: 2 }),
      // @ts-expect-error: topic is a string, not a count
      perUnit({ credits: 2, unit: 'page', field: 'topic', min: 1, max: 5 }),
      // @ts-expect-error: pages is a number, not a text
      perLength({ credits: 1, field: 'pages', block: 10, max: 2 }),
      // @ts-expect-error: there is no field named size
      perUnit({ credits: 2, unit: 'page', field: 'size', min: 1, max: 5 }),
    ];
    expect(rules.map((rule) => rule.kind)).to.deep.equal([
      'per-unit',
      'per-unit',
      'combined',
      'combined',
      'per-length',
      'table',
      'per-unit',
      'per-length',
      'per-unit',
    ]);
  });
});
