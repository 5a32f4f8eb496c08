import * as z from 'zod';
import type { AppCard } from '../../shared/contract/cards/app-card';
import { bearerOperation, type Operation } from '../../shared/contract/operations/operation';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { fixedPrice } from '../../shared/domain/jobs/price';
import { paidJob } from '../../shared/domain/jobs/processor';
import { EXTRA_OPERATIONS } from './extra-operations';

/*
 * The operations test/support/inject-extra-operations.ts adds to the registry itself: declared here, apart
 * from that file's edit of the registry, so that a test can name them without making the edit.
 */

/** A card of the injected paid operation's own, besides the job card the others name. */
export const INJECTED_CARD: AppCard = {
  uri: 'ui://connector/injected-card.html',
  name: 'Injected card',
  description: 'A card only the injected operation names.',
  html: async () => '<!doctype html><title>Injected</title>',
};

/** A free operation with a body limit of its own (300,000 bytes) and no card. */
export const injectedNote = bearerOperation({
  operationId: 'injectedNote',
  method: 'post',
  path: '/v1/injected-notes',
  summary: 'Keep a long note',
  description: 'Keeps a note of up to 20,000 characters for the person. Free.',
  published: true,
  consequential: false,
  bodyLimitBytes: 300_000,
  requestBody: z.strictObject({ note: z.string().min(1).max(20_000) }),
  responses: {
    200: {
      description: 'The note kept.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['note'],
        properties: { note: { type: 'string', maxLength: 20_000 } },
      },
    },
  },
  errors: [400, 401, 413, 429, 500],
  handle: async (request) => ({ status: 200, body: { note: request.body.note } }),
});

/** A paid operation at 2 credits whose tool names a card of its own. */
export const injectedShout = paidOperation({
  job: paidJob({
    operationId: 'injectedShout',
    input: z.strictObject({ text: z.string().min(1).max(200) }),
    result: z.strictObject({ shouted: z.string().max(200) }),
    example: { text: 'hello' },
    processor: () => async (input) => ({ shouted: input.text.toUpperCase() }),
  }),
  path: '/v1/injected-shouts',
  summary: 'Shout a text (2 credits)',
  description: 'Turns a text to capitals. Costs 2 credits, charged once when accepted: ask the person first.',
  price: fixedPrice(2),
  noun: 'shout',
  card: INJECTED_CARD,
});

/** What is added: the extra operations of the template trial, and the two above. */
export const INJECTED_OPERATIONS: readonly Operation[] = [...EXTRA_OPERATIONS, injectedNote, injectedShout];
