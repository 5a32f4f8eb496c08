import { expect } from 'chai';
import * as z from 'zod';
import { bearerOperation } from '../../../../../shared/contract/operations/operation';
import { paidOperation } from '../../../../../shared/contract/operations/paid-operation';
import { OPERATIONS } from '../../../../../shared/contract/operations/registry';
import {
  assertRegistryRules,
  meetsRegistryRules,
  REGISTRY_RULES,
  registryProblems,
} from '../../../../../shared/contract/operations/registry-rules';
import { combinedPrice, fixedPrice, type PriceRule, perUnit, priceTable } from '../../../../../shared/domain/jobs/price';
import { paidJob } from '../../../../../shared/domain/jobs/processor';
import { DEPTH_CREDITS, draftJob, EXTRA_OPERATIONS, withOperations } from '../../../../support/extra-operations';
import { pages } from '../../../../support/pages-input';

/** A free published operation with `description`. */
const free = (description: string) =>
  bearerOperation({
    operationId: 'wordy',
    method: 'get',
    path: '/v1/wordy',
    summary: 'Wordy',
    description,
    published: true,
    consequential: false,
    responses: { 200: { description: 'ok', schema: { type: 'object' } } },
    errors: [401],
    handle: async () => ({ status: 200, body: {} }),
  });

describe('the rules every operation of the registry meets', () => {
  // One test per operation and rule, over the registry and the extra operations (each operation once): a
  // mistake in one operation fails the one test naming both. Suites that build documents leave such an
  // operation out (meetsRegistryRules), and the API refuses to start with it (api/main.ts).
  for (const operation of withOperations(OPERATIONS, EXTRA_OPERATIONS)) {
    for (const rule of REGISTRY_RULES) {
      it(`${operation.operationId} meets the rule "${rule.name}"`, () => {
        expect(rule.problem(operation), `${operation.operationId}: ${rule.name}`).to.equal(undefined);
      });
    }
  }

  it('a published description of 301 characters breaks the description rule, named with its operation', () => {
    expect(registryProblems([free('x'.repeat(301))])).to.deep.equal([
      'wordy: the description with its price and cancel sentences is 301 characters (max 300); shorten it, or state the price in the text',
    ]);
    expect(registryProblems([free('x'.repeat(300))])).to.deep.equal([]);
    expect(registryProblems([free('')])).to.deep.equal(['wordy: the description is empty']);
  });

  it('a paid job declaring an event under a built-in prefix breaks the events rule, named with its operation', () => {
    const job = paidJob({
      operationId: 'clashing',
      input: pages,
      events: { 'job.ready': { description: 'Clashes.', data: z.strictObject({ n: z.int() }) } },
      processor: () => async () => ({}),
    });
    const operation = paidOperation({ job, path: '/v1/clashing', summary: 'Clashing', description: 'Clashes.', price: fixedPrice(1) });
    expect(registryProblems([operation])).to.deep.equal([
      'clashing: the event type "job.ready" takes a prefix of the connector\'s own events (job., connection., credits.)',
    ]);
  });

  it('a paid operation whose price rule was declared out of range breaks the price rule, named with its operation', () => {
    const job = paidJob({ operationId: 'negative', input: pages, processor: () => async () => ({}) });
    const operation = paidOperation({
      job,
      path: '/v1/negative',
      summary: 'Negative',
      description: 'Pays the person.',
      price: fixedPrice(-1),
    });
    expect(registryProblems([operation])).to.deep.equal([
      'negative: the price rule is out of range: price: credits must be a non-negative integer, got -1',
    ]);
  });

  /** The trial's draftReport with another price rule or input, as a user might get it wrong. */
  const draft = (price: PriceRule, input: z.ZodType = draftJob.input) =>
    paidOperation({
      job: paidJob({ operationId: 'draftWrong', input, processor: () => async () => ({}) }),
      path: '/v1/draft-wrong',
      summary: 'Draft',
      description: 'Drafts a report.',
      price: price as never,
      body: 'top-level',
    });
  const sources = (min: number, max: number, field = 'sources') => perUnit({ credits: 1, unit: 'source URL', field, min, max });
  const PRICE_RULE = 'the price rule is in range and fits the input schema';
  const problemsOf = (operation: ReturnType<typeof draft>) =>
    REGISTRY_RULES.flatMap((rule) =>
      rule.problem(operation) === undefined ? [] : [`${operation.operationId} "${rule.name}": ${rule.problem(operation)}`],
    );

  it('a combined price with a negative term, a term out of the schema’s range or a field not in the schema breaks the price rule alone, named with its operation and term', () => {
    expect(problemsOf(draft(combinedPrice(priceTable('depth', DEPTH_CREDITS), sources(0, 16))))).to.deep.equal([]);
    expect(problemsOf(draft(combinedPrice(priceTable('depth', { quick: -2, deep: 6 }), sources(0, 16))))).to.deep.equal([
      `draftWrong "${PRICE_RULE}": the price rule is out of range: combinedPrice: term 1: price: credits of quick must be a non-negative integer, got -2`,
    ]);
    expect(problemsOf(draft(combinedPrice(priceTable('depth', DEPTH_CREDITS), sources(0, 20))))).to.deep.equal([
      `draftWrong "${PRICE_RULE}": the price rule does not fit the input schema: term 2 (per-unit): input.sources must be a list with minItems 0 and maxItems 20`,
    ]);
    expect(problemsOf(draft(combinedPrice(priceTable('depth', DEPTH_CREDITS), sources(0, 16, 'links'))))).to.deep.equal([
      `draftWrong "${PRICE_RULE}": the price rule does not fit the input schema: term 2 (per-unit): input.links must be a required field of the input`,
    ]);
    expect(problemsOf(draft(combinedPrice(priceTable('depth', { quick: 2 }), sources(0, 16))))).to.deep.equal([
      `draftWrong "${PRICE_RULE}": the price rule does not fit the input schema: term 1 (table): input.depth must be an enum of exactly quick`,
    ]);
  });

  it('a top-level body whose input has an idempotency_key field, or is no object, breaks the body rule, named with its operation', () => {
    const rule = 'a top-level body is an object without an idempotency_key field';
    const keyed = z.strictObject({
      depth: z.enum(['quick', 'deep']),
      sources: z.array(z.url().max(50)).max(16),
      idempotency_key: z.string().max(10),
    });
    expect(problemsOf(draft(combinedPrice(priceTable('depth', DEPTH_CREDITS), sources(0, 16)), keyed))).to.deep.equal([
      `draftWrong "${rule}": the input has a field idempotency_key, which a top-level body leaves to the key: rename it`,
    ]);
    expect(problemsOf(draft(fixedPrice(1), z.array(z.string().max(5)).max(3)))).to.deep.equal([
      `draftWrong "${rule}": the input of a top-level body must be an object schema (z.strictObject)`,
    ]);
  });

  it('limits out of range, a daily cap on a free operation or below the lowest price break the limits rule, named with the operation', () => {
    const job = paidJob({ operationId: 'capped', input: pages, processor: () => async () => ({}) });
    const capped = (limits: object) =>
      paidOperation({ job, path: '/v1/capped', summary: 'Capped', description: 'Caps.', price: fixedPrice(3), limits: limits as never });
    const rule = 'the limits are out of range:';
    expect(registryProblems([capped({ perMinute: 0 })])).to.deep.equal([
      `capped: ${rule} perMinute must be a whole number from 1 to 1,000,000`,
    ]);
    expect(registryProblems([capped({ perMinute: 2.5 })])).to.deep.equal([
      `capped: ${rule} perMinute must be a whole number from 1 to 1,000,000`,
    ]);
    expect(registryProblems([capped({ dailyCredits: 1_000_000_001 })])).to.deep.equal([
      `capped: ${rule} dailyCredits must be a whole number from 1 to 1,000,000,000`,
    ]);
    expect(registryProblems([capped({ perDay: 3 })])).to.deep.equal([`capped: ${rule} limits takes perMinute and dailyCredits only`]);
    expect(registryProblems([{ ...free('Free.'), limits: { dailyCredits: 5 } }])).to.deep.equal([
      `wordy: ${rule} dailyCredits is set on an operation without a price`,
    ]);
    expect(registryProblems([capped({ dailyCredits: 2 })])).to.deep.equal([
      'capped: the daily cap of 2 credits is below the lowest price, 3: no job could ever be accepted',
    ]);
    expect(registryProblems([capped({ perMinute: 1, dailyCredits: 3 }), { ...free('Free.'), limits: { perMinute: 5 } }])).to.deep.equal([]);
  });

  it('the limits sentence counts toward the 300 characters of the composed description', () => {
    const job = paidJob({ operationId: 'capped', input: pages, processor: () => async () => ({}) });
    const capped = paidOperation({
      job,
      path: '/v1/capped',
      summary: 'Capped',
      description: 'x'.repeat(230),
      price: fixedPrice(3),
      limits: { perMinute: 20, dailyCredits: 30 },
    });
    // 230 + " Costs 3 credits." (17) + " A late cancel pays the share done." (35) + " At most 20 calls a minute; at most 30 credits a day." (53)
    expect(registryProblems([capped])).to.deep.equal([
      'capped: the description with its price and cancel sentences is 335 characters (max 300); shorten it, or state the price in the text',
    ]);
  });

  it('assertRegistryRules throws every broken rule at once and passes a registry that meets them; meetsRegistryRules tells one operation', () => {
    expect(meetsRegistryRules(free('x'.repeat(301)))).to.equal(false);
    expect(meetsRegistryRules(free('Fine.'))).to.equal(true);
    expect(() => assertRegistryRules([free('x'.repeat(301))])).to.throw(/the operations registry breaks its rules:\n {2}wordy: /);
    expect(() => assertRegistryRules([free('Fine.')])).to.not.throw();
  });
});
