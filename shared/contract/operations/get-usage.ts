import { SPEND_HISTORY_DAYS } from '../../domain/ledger/ledger-store';
import { SUBJECT_QUERY_PARAMETER } from './list-connections';
import { linkSecretOperation } from './operation';

/** How many days `GET /v1/link/usage` shows unless `days` says otherwise. */
const DEFAULT_DAYS = 30;

/** `GET /v1/link/usage`: the dashboard reads what a subject was charged, per UTC day. Not shown to the model. */
export const getUsage = linkSecretOperation({
  operationId: 'getUsage',
  method: 'get',
  path: '/v1/link/usage',
  summary: "Read a subject's usage",
  description: "For the operator's dashboard only: the subject's charges in total and per UTC day, and the daily credit limit in force.",
  published: false,
  consequential: false,
  parameters: [
    SUBJECT_QUERY_PARAMETER,
    {
      name: 'days',
      in: 'query',
      required: false,
      description: `How many UTC days to show, today included (1 to ${SPEND_HISTORY_DAYS}).`,
      schema: { type: 'integer', minimum: 1, maximum: SPEND_HISTORY_DAYS, default: DEFAULT_DAYS },
    },
  ],
  responses: {
    200: {
      description: "The subject's charges.",
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['subject', 'credits_spent', 'credits_refunded', 'jobs_charged', 'daily_credit_limit', 'days'],
        properties: {
          subject: { type: 'string' },
          credits_spent: { type: 'integer', description: 'Credits charged so far minus credits refunded, in total.' },
          credits_refunded: { type: 'integer', minimum: 0, description: 'Credits given back (canceled or failed jobs), in total.' },
          jobs_charged: { type: 'integer', minimum: 0, description: 'Paid jobs accepted so far, in total.' },
          daily_credit_limit: {
            type: ['integer', 'null'],
            minimum: 0,
            description: 'Credits that may be charged per UTC day; null without a cap.',
          },
          days: {
            type: 'array',
            description: 'Credits per UTC day, today first, days without charges included; credits is charged minus refunded.',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['date', 'credits', 'charged', 'refunded'],
              properties: {
                date: { type: 'string', format: 'date' },
                credits: { type: 'integer' },
                charged: { type: 'integer', minimum: 0 },
                refunded: { type: 'integer', minimum: 0 },
              },
            },
          },
        },
      },
    },
  },
  errors: [400, 401, 429, 500, 503],
  handle: async (request, services) => {
    const days = Number(request.query.days ?? DEFAULT_DAYS);
    return { status: 200, body: await services.usage.report(String(request.query.subject), Number.isInteger(days) ? days : DEFAULT_DAYS) };
  },
});
