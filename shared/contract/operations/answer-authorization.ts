import * as z from 'zod';
import { AUTHORIZATION_REQUEST_PARAMETER } from './get-authorization';
import { linkSecretOperation } from './operation';

/**
 * `POST /v1/link/authorizations/{request}`: the dashboard answers a pending OAuth request, once. Approval
 * makes a connection for the subject (normalised as `/v1/link` does). Not shown to the model.
 */
export const answerAuthorization = linkSecretOperation({
  operationId: 'answerAuthorization',
  method: 'post',
  path: '/v1/link/authorizations/{request}',
  summary: 'Approve or deny a pending authorization request',
  description: "For the operator's dashboard only: approves the request for a subject, or denies it, and says where to send the browser.",
  published: false,
  consequential: true,
  parameters: [AUTHORIZATION_REQUEST_PARAMETER],
  requestBody: z.xor([z.strictObject({ subject: z.string().min(1).max(1024) }), z.strictObject({ deny: z.literal(true) })]),
  responses: {
    200: {
      description:
        "Where to send the browser: the app's redirect URI with a code, or with error=access_denied; on approval, the connection made.",
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['redirect_to'],
        properties: {
          redirect_to: { type: 'string', format: 'uri' },
          connection_id: {
            type: 'string',
            pattern: '^conn_',
            description: 'Set on approval: the connection the app now holds (list it, revoke it).',
          },
        },
      },
    },
  },
  errors: [400, 401, 404, 413, 415, 429, 500, 503],
  handle: async (request, services) => {
    const { redirectTo, connectionId } = await services.oauth.consent.answer(request.params.request, request.body);
    return { status: 200, body: { redirect_to: redirectTo, ...(connectionId ? { connection_id: connectionId } : {}) } };
  },
});
