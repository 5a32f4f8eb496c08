import { GRANT_ID_PATTERN, MAX_GRANT_CREDITS, MAX_GRANT_NOTE } from '../../domain/credits/credit-rules';
import type { JsonSchema, Operation } from './operation';
import { timestamp } from './schemas';

/** A credit entry as `GET /v1/link/credits` lists it and `POST /v1/link/credits` answers its grant. */
export const CREDIT_ENTRY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind', 'credits', 'at'],
  properties: {
    id: { type: 'string', pattern: '^cre_' },
    kind: {
      type: 'string',
      enum: ['grant', 'adjustment', 'hold', 'capture', 'release'],
      description:
        'grant and adjustment: the dashboard moved the balance; hold: a paid job set its price aside; capture: the job kept it; release: it went back.',
    },
    credits: {
      type: 'integer',
      description: 'The amount moved: negative for an adjustment, positive otherwise (balance = grants + adjustments − holds + releases).',
    },
    at: timestamp,
    grant_id: { type: 'string', description: 'A grant or adjustment: the id the dashboard gave it.' },
    job_id: { type: 'string', description: 'A hold, capture or release: the job.' },
    note: { type: 'string', description: "A grant or adjustment: the dashboard's note." },
  },
};

/** The balance and held credits of an account, as both credit operations answer them. */
export const ACCOUNT_PROPERTIES: Readonly<Record<string, JsonSchema>> = {
  subject: { type: 'string' },
  balance: { type: 'integer', description: 'What can be held for new jobs now: grants + adjustments − captures − held. May be negative.' },
  held: { type: 'integer', minimum: 0, description: 'Set aside for paid jobs not yet final.' },
};

/** What a grant answers, new or replayed: the account as it is now, and the grant. */
const GRANT_ANSWER_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['subject', 'balance', 'held', 'grant'],
  properties: { ...ACCOUNT_PROPERTIES, grant: CREDIT_ENTRY_SCHEMA },
};

/** `POST /v1/link/credits`: the dashboard grants (or takes back) credits, idempotent by `grant_id`. Not shown to the model. */
export const grantCredits: Operation = {
  operationId: 'grantCredits',
  method: 'post',
  path: '/v1/link/credits',
  summary: 'Grant credits to a subject',
  description:
    "For the operator's dashboard only, in prepaid billing: adds credits to the subject's balance (negative credits: an adjustment), once per grant_id.",
  auth: 'link-secret',
  published: false,
  consequential: true,
  requestBody: {
    type: 'object',
    additionalProperties: false,
    required: ['subject', 'credits', 'grant_id'],
    properties: {
      subject: { type: 'string', minLength: 1, maxLength: 1024 },
      credits: {
        type: 'integer',
        minimum: -MAX_GRANT_CREDITS,
        maximum: MAX_GRANT_CREDITS,
        description: 'Credits to add; negative to take some back (a refunded purchase). Not 0.',
      },
      grant_id: {
        type: 'string',
        minLength: 1,
        maxLength: 255,
        pattern: GRANT_ID_PATTERN.source,
        description: 'Your id of this grant, e.g. the checkout session id: the same id again is the same grant.',
      },
      note: { type: 'string', maxLength: MAX_GRANT_NOTE, pattern: '^[^\\x00-\\x1F\\x7F]*$', description: 'Shown with the entry.' },
    },
  },
  responses: {
    201: {
      description: 'The grant was added: the account after it, and the grant.',
      schema: GRANT_ANSWER_SCHEMA,
    },
    200: {
      description: 'The same grant_id with the same body was granted before: the account now and that grant; nothing was added.',
      schema: GRANT_ANSWER_SCHEMA,
      headers: {
        'Idempotent-Replayed': {
          description: '`true`: this answer replays an earlier grant.',
          schema: { type: 'string', enum: ['true'] },
          required: true,
        },
      },
    },
  },
  errors: [400, 401, 409, 413, 415, 422, 429, 500, 503],
  handle: async (request, services) => {
    const { replayed, view } = await services.credits.grant(request.body);
    return replayed ? { status: 200, body: view, headers: { 'Idempotent-Replayed': 'true' } } : { status: 201, body: view };
  },
};
