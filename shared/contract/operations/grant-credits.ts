import * as z from 'zod';
import { GRANT_ID_PATTERN, MAX_GRANT_CREDITS, MAX_GRANT_NOTE } from '../../domain/credits/credit-rules';
import { type JsonSchema, linkSecretOperation } from './operation';
import { timestamp } from './schemas';

/** A credit entry as `GET /v1/link/credits` lists it and `POST /v1/link/credits` answers its grant. */
export const CREDIT_ENTRY_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind', 'credits', 'at', 'balance_after', 'held_after'],
  properties: {
    id: { type: 'string', pattern: '^cre_' },
    kind: {
      type: 'string',
      enum: ['grant', 'adjustment', 'hold', 'capture', 'release', 'expire', 'void'],
      description:
        'grant and adjustment: the dashboard moved the balance; hold: a paid job set its price aside; capture: the job kept it; ' +
        'release: it went back; expire: the unspent rest of a grant past its expires_at left; void: the dashboard voided the unspent rest of a grant.',
    },
    credits: {
      type: 'integer',
      description:
        'The amount moved: negative for an adjustment, positive otherwise (balance = grants + adjustments − holds + releases − expires − voids).',
    },
    at: timestamp,
    grant_id: { type: 'string', description: 'A grant or adjustment: the id the dashboard gave it.' },
    job_id: { type: 'string', description: 'A hold, capture or release: the job.' },
    expires_at: { type: 'string', format: 'date-time', description: 'A grant: when its unspent rest expires.' },
    void_id: { type: 'string', description: 'A void: the id the dashboard gave it.' },
    note: { type: 'string', description: "A grant or adjustment: the dashboard's note." },
    reason: {
      type: 'string',
      enum: ['orphaned'],
      description: 'A release: orphaned when its job was never enqueued (HOLD_ORPHAN_SECONDS).',
    },
    balance_after: { type: 'integer', description: "The account's balance just after this entry." },
    held_after: { type: 'integer', minimum: 0, description: "The account's held credits just after this entry." },
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
/** A grant's or void's `note`: shown with its entry; no control characters. */
export const ENTRY_NOTE = z
  .string()
  .max(MAX_GRANT_NOTE)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: it names the control characters to refuse them
  .regex(/^[^\x00-\x1F\x7F]*$/)
  .describe('Shown with the entry.')
  .optional();

export const grantCredits = linkSecretOperation({
  operationId: 'grantCredits',
  method: 'post',
  path: '/v1/link/credits',
  summary: 'Grant credits to a subject',
  description:
    "For the operator's dashboard only, in prepaid billing: adds credits to the subject's balance (negative credits: an adjustment), once per grant_id.",
  published: false,
  consequential: true,
  requestBody: z.strictObject({
    subject: z.string().min(1).max(1024),
    credits: z
      .int()
      .min(-MAX_GRANT_CREDITS)
      .max(MAX_GRANT_CREDITS)
      .describe('Credits to add; negative to take some back (a refunded purchase). Not 0.'),
    grant_id: z
      .string()
      .min(1)
      .max(255)
      .regex(GRANT_ID_PATTERN)
      .describe('Your id of this grant, e.g. the checkout session id: the same id again is the same grant.'),
    note: ENTRY_NOTE,
    expires_at: z
      .string()
      .max(64)
      .describe(
        'A positive grant only: when its unspent rest expires (RFC 3339, in the future). Spends draw from the grant that expires first.',
      )
      .optional(),
  }),
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
});
