import * as z from 'zod';
import { GRANT_ID_PATTERN } from '../../domain/credits/credit-rules';
import { ACCOUNT_PROPERTIES, CREDIT_ENTRY_SCHEMA, ENTRY_NOTE } from './grant-credits';
import { type JsonSchema, linkSecretOperation } from './operation';

/** What a void answers, new or replayed: the account as it is now, and the void. */
const VOID_ANSWER_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['subject', 'balance', 'held', 'void'],
  properties: { ...ACCOUNT_PROPERTIES, void: CREDIT_ENTRY_SCHEMA },
};

const id = (what: string) => z.string().min(1).max(255).regex(GRANT_ID_PATTERN).describe(what);

/**
 * `POST /v1/link/credits/void`: the dashboard voids the unspent rest of a grant (a refunded purchase), never
 * what was spent or is held, idempotent by `void_id`. Not shown to the model.
 */
export const voidCredits = linkSecretOperation({
  operationId: 'voidCredits',
  method: 'post',
  path: '/v1/link/credits/void',
  summary: 'Void the unspent rest of a grant',
  description:
    "For the operator's dashboard only, in prepaid billing: removes what is left of one grant from the subject's balance " +
    '(never what jobs spent or hold), once per void_id.',
  published: false,
  consequential: true,
  requestBody: z.strictObject({
    subject: z.string().min(1).max(1024),
    grant_id: id('The grant_id of the grant to void.'),
    void_id: id('Your id of this void, e.g. the refund id: the same id again is the same void.'),
    note: ENTRY_NOTE,
  }),
  responses: {
    201: { description: 'The rest of the grant was voided: the account after it, and the void.', schema: VOID_ANSWER_SCHEMA },
    200: {
      description: 'The same void_id with the same body was voided before: the account now and that void; nothing more moved.',
      schema: VOID_ANSWER_SCHEMA,
      headers: {
        'Idempotent-Replayed': {
          description: '`true`: this answer replays an earlier void.',
          schema: { type: 'string', enum: ['true'] },
          required: true,
        },
      },
    },
  },
  errors: [400, 401, 404, 409, 413, 415, 422, 429, 500, 503],
  handle: async (request, services) => {
    const { replayed, view } = await services.credits.voidGrant(request.body);
    return replayed ? { status: 200, body: view, headers: { 'Idempotent-Replayed': 'true' } } : { status: 201, body: view };
  },
});
