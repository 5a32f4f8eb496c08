import { ACCOUNT_PROPERTIES, CREDIT_ENTRY_SCHEMA } from './grant-credits';
import { SUBJECT_QUERY_PARAMETER } from './list-connections';
import { linkSecretOperation } from './operation';
import { PAGE_PARAMETERS, pageArgs } from './schemas';

/** `since` and `until`: the period of the entries shown, by their `at` (since included, until excluded). */
export const PERIOD_PARAMETERS: ReadonlyArray<Record<string, unknown>> = [
  {
    name: 'since',
    in: 'query',
    required: false,
    description: 'Only entries at or after this time (RFC 3339).',
    schema: { type: 'string', format: 'date-time' },
  },
  {
    name: 'until',
    in: 'query',
    required: false,
    description: 'Only entries before this time (RFC 3339).',
    schema: { type: 'string', format: 'date-time' },
  },
];

/** `GET /v1/link/credits`: the dashboard reads a subject's credit account and its entries. Not shown to the model. */
export const getCredits = linkSecretOperation({
  operationId: 'getCredits',
  method: 'get',
  path: '/v1/link/credits',
  summary: "Read a subject's credit account",
  description: "For the operator's dashboard only: the subject's balance, held credits and the entries that moved them, newest first.",
  published: false,
  consequential: false,
  parameters: [SUBJECT_QUERY_PARAMETER, ...PERIOD_PARAMETERS, ...PAGE_PARAMETERS],
  responses: {
    200: {
      description: 'The account and a page of its entries.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['subject', 'balance', 'held', 'entries', 'next_cursor'],
        properties: {
          ...ACCOUNT_PROPERTIES,
          entries: { type: 'array', items: CREDIT_ENTRY_SCHEMA },
          next_cursor: { type: ['string', 'null'], description: 'Pass as cursor for the next page; null on the last page.' },
        },
      },
    },
  },
  errors: [400, 401, 429, 500, 503],
  handle: async (request, services) => ({
    status: 200,
    body: await services.credits.statement(String(request.query.subject), {
      ...pageArgs(request.query),
      since: request.query.since,
      until: request.query.until,
    }),
  }),
});
