import { linkSecretOperation } from './operation';

const FIGURE = { type: 'integer' } as const;

/** `GET /v1/link/credits/summary`: every account's figures added up, for a reconciliation. Not shown to the model. */
export const getCreditSummary = linkSecretOperation({
  operationId: 'getCreditSummary',
  method: 'get',
  path: '/v1/link/credits/summary',
  summary: 'Add up every credit account',
  description:
    "For the operator's dashboard only: the credits granted, adjusted, captured, released, expired and voided across every account, " +
    'the balances and held credits now, and whether granted + adjusted − captured − expired − voided = balance + held.',
  published: false,
  consequential: false,
  parameters: [],
  responses: {
    200: {
      description: 'The totals over every account.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: [
          'granted',
          'adjusted',
          'captured',
          'released',
          'expired',
          'voided',
          'balance',
          'held',
          'holds',
          'accounts',
          'reconciles',
        ],
        properties: {
          granted: FIGURE,
          adjusted: FIGURE,
          captured: FIGURE,
          released: FIGURE,
          expired: FIGURE,
          voided: FIGURE,
          balance: FIGURE,
          held: FIGURE,
          holds: { type: 'integer', description: 'Open holds (of more than 0 credits).' },
          accounts: { type: 'integer', description: 'Accounts added up.' },
          reconciles: { type: 'boolean', description: 'granted + adjusted − captured − expired − voided = balance + held.' },
        },
      },
    },
  },
  errors: [401, 429, 500, 503],
  handle: async (_request, services) => ({ status: 200, body: await services.credits.summary() }),
});
