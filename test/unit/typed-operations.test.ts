import { expect } from 'chai';
import * as z from 'zod';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { checkPriceAgainstInput } from '../../shared/contract/operations/price-schema-check';
import { publishedSchema } from '../../shared/contract/operations/published-schema';
import { customPrice, fixedPrice, perLength, perUnit, type PriceRule, priceTable } from '../../shared/domain/jobs/price';
import { buildProcessors, paidJob, RESULT_OUTSIDE_SCHEMA } from '../../shared/domain/jobs/processor';
import { JobError } from '../../shared/platform/errors/job-error';

const context = { jobId: 'job_1', attempt: 1, progress: () => undefined, signal: new AbortController().signal };

describe('operation schemas declared with zod', () => {
  it('publish as draft 2020-12 JSON Schema in the documents’ key order (type, additionalProperties, required, properties; a description last)', () => {
    const { schema, components } = publishedSchema(
      z.strictObject({ name: z.string().min(1).max(20), note: z.string().max(5).optional().describe('A note.') }),
    );
    expect(components).to.deep.equal({});
    expect(JSON.stringify(schema)).to.equal(
      JSON.stringify({
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 20 },
          note: { type: 'string', maxLength: 5, description: 'A note.' },
        },
      }),
    );
  });

  it('a part named with .meta({ id }) becomes a component, referred to under #/components/schemas', () => {
    const Named = z.strictObject({ value: z.int().min(0).max(9) }).meta({ id: 'TypedOperationsNamed' });
    const { schema, components } = publishedSchema(z.strictObject({ named: Named }));
    expect((schema.properties as Record<string, unknown>).named).to.deep.equal({ $ref: '#/components/schemas/TypedOperationsNamed' });
    expect(components.TypedOperationsNamed).to.deep.equal({
      type: 'object',
      additionalProperties: false,
      required: ['value'],
      properties: { value: { type: 'integer', minimum: 0, maximum: 9 } },
    });
    expect(publishedSchema(Named).schema).to.deep.equal({ $ref: '#/components/schemas/TypedOperationsNamed' });
  });

  it('a default or a transform is refused: the handler gets the body as sent, so what is read must be what was checked', () => {
    expect(() => publishedSchema(z.strictObject({ size: z.int().default(3) }))).to.throw(/plain data/);
    expect(() => publishedSchema(z.strictObject({ size: z.string().transform((text) => text.length) }))).to.throw(/Transforms/);
  });
});

describe('a price rule checked against the input schema when the operation is declared', () => {
  const pages = z.strictObject({ topic: z.string().max(9), pages: z.int().min(1).max(5) });

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

  it('a rule typed by its input names a field of the right type, or does not compile (checked by tsc, run by npm run typecheck)', () => {
    type Input = { topic: string; pages: number; quality: 'draft' | 'fine' };
    const rules: Array<PriceRule<Input>> = [
      perUnit({ credits: 2, unit: 'page', field: 'pages', min: 1, max: 5 }),
      perLength({ credits: 1, field: 'topic', block: 10, max: 2 }),
      priceTable('quality', { draft: 1, fine: 2 }),
      // @ts-expect-error: topic is a string, not a count
      perUnit({ credits: 2, unit: 'page', field: 'topic', min: 1, max: 5 }),
      // @ts-expect-error: pages is a number, not a text
      perLength({ credits: 1, field: 'pages', block: 10, max: 2 }),
      // @ts-expect-error: there is no field named size
      perUnit({ credits: 2, unit: 'page', field: 'size', min: 1, max: 5 }),
    ];
    expect(rules.map((rule) => rule.kind)).to.deep.equal(['per-unit', 'per-length', 'table', 'per-unit', 'per-length', 'per-unit']);
  });

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

describe("a paid job's declared result", () => {
  it('a result outside the job’s result schema fails the attempt with a safe, final JobError; one inside passes unchanged', async () => {
    const job = paidJob({
      operationId: 'checked',
      input: z.strictObject({ n: z.int() }),
      result: z.strictObject({ doubled: z.int().max(10) }),
      processor: () => async (input) => ({ doubled: input.n * 2 }),
    });
    const processor = buildProcessors([job]).get('checked')!;
    expect(await processor({ n: 4 }, context)).to.deep.equal({ doubled: 8 });
    const failure = await processor({ n: 6 }, context).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).to.be.instanceOf(JobError);
    expect(failure).to.include({ message: RESULT_OUTSIDE_SCHEMA, retryable: false });
  });
});
