import { expect } from 'chai';
import * as z from 'zod';
import {
  bodyLimitOf,
  DEFAULT_BODY_LIMIT_BYTES,
  mcpBodyLimit,
  worstCaseJsonBytes,
} from '../../../../../shared/contract/operations/body-limit';
import { bearerOperation } from '../../../../../shared/contract/operations/operation';
import { OPERATIONS } from '../../../../../shared/contract/operations/registry';

/** A free operation whose body is `schema`. */
const taking = (schema: z.ZodType, bodyLimitBytes?: number) =>
  bearerOperation({
    operationId: 'takes',
    method: 'post',
    path: '/v1/takes',
    summary: 'Takes a body',
    description: 'Takes a body.',
    published: true,
    consequential: false,
    requestBody: schema,
    ...(bodyLimitBytes === undefined ? {} : { bodyLimitBytes }),
    responses: { 200: { description: 'ok', schema: { type: 'object' } } },
    errors: [400],
    handle: async () => ({ status: 200, body: {} }),
  });

describe('the request body limit', () => {
  it('the worst case of a string is every character escaped as a surrogate pair: 12 bytes each, plus its quotes', () => {
    expect(worstCaseJsonBytes({ type: 'string', maxLength: 10 }, {})).to.equal(122);
    // What a client can really send for 10 emoji written as escapes: "\ud83d\ude00" ten times.
    expect(JSON.stringify('😀'.repeat(10)).replace(/[\u{10000}-\u{10FFFF}]/gu, '\\ud83d\\ude00').length).to.equal(122);
  });

  it('an object adds its keys escaped and its punctuation; an array its items; a branch the worst of its branches', () => {
    const components = { Named: { type: 'string', maxLength: 1 } };
    expect(worstCaseJsonBytes({ type: 'object', additionalProperties: false, properties: { ab: { type: 'boolean' } } }, {})).to.equal(
      2 + (2 + 12) + 1 + 5 + 1,
    );
    expect(worstCaseJsonBytes({ type: 'array', maxItems: 3, items: { type: 'null' } }, {})).to.equal(2 + 3 * 5);
    expect(worstCaseJsonBytes({ anyOf: [{ type: 'null' }, { $ref: '#/components/schemas/Named' }] }, components)).to.equal(14);
    expect(worstCaseJsonBytes({ enum: ['ab', 'c'] }, {})).to.equal(4 * 6);
  });

  it('a string without maxLength, an array without maxItems or an open object is unbounded', () => {
    expect(worstCaseJsonBytes({ type: 'string' }, {})).to.equal(Number.POSITIVE_INFINITY);
    expect(worstCaseJsonBytes({ type: 'array', items: { type: 'null' } }, {})).to.equal(Number.POSITIVE_INFINITY);
    expect(worstCaseJsonBytes({ type: 'object', properties: {} }, {})).to.equal(Number.POSITIVE_INFINITY);
  });

  it('an operation takes its body’s worst case, never less than 64 KiB, or its own setting', () => {
    expect(bodyLimitOf(taking(z.strictObject({ text: z.string().max(100) })))).to.equal(DEFAULT_BODY_LIMIT_BYTES);
    const large = bodyLimitOf(taking(z.strictObject({ text: z.string().max(20_000) })));
    expect(large).to.equal(2 + (2 + 4 * 6) + 1 + (2 + 20_000 * 12) + 1);
    expect(bodyLimitOf(taking(z.strictObject({ text: z.string() })))).to.equal(DEFAULT_BODY_LIMIT_BYTES);
    expect(bodyLimitOf(taking(z.strictObject({ text: z.string().max(20_000) }), 100_000))).to.equal(100_000);
  });

  it('every operation of the registry takes its own setting when it has one, else at least 64 KiB', () => {
    for (const operation of OPERATIONS) {
      if (operation.bodyLimitBytes === undefined)
        expect(bodyLimitOf(operation), operation.operationId).to.be.at.least(DEFAULT_BODY_LIMIT_BYTES);
      else expect(bodyLimitOf(operation), operation.operationId).to.equal(operation.bodyLimitBytes);
    }
  });

  it('/mcp takes 64 KiB, or the largest operation’s limit plus the JSON-RPC envelope', () => {
    const largest = Math.max(...OPERATIONS.map((operation) => bodyLimitOf(operation)));
    expect(mcpBodyLimit(OPERATIONS)).to.equal(largest > DEFAULT_BODY_LIMIT_BYTES ? largest + 16 * 1024 : DEFAULT_BODY_LIMIT_BYTES);
    expect(mcpBodyLimit([])).to.equal(DEFAULT_BODY_LIMIT_BYTES);
    const large = taking(z.strictObject({ text: z.string().max(20_000) }));
    expect(mcpBodyLimit([...OPERATIONS, large])).to.equal(Math.max(largest, bodyLimitOf(large)) + 16 * 1024);
  });
});
