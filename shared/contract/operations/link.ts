import * as z from 'zod';
import { isX402Subject } from '../../domain/x402/x402-subject';
import { ValidationError } from '../../platform/errors/problems';
import { linkSecretOperation } from './operation';

/** `POST /v1/link`: the dashboard mints a token for a subject. Not shown to the model. */
export const link = linkSecretOperation({
  operationId: 'link',
  method: 'post',
  path: '/v1/link',
  summary: 'Mint a bearer token for a subject',
  description: "For the operator's dashboard only: creates a new connection for the subject and returns its bearer token.",
  published: false,
  consequential: true,
  requestBody: z.strictObject({ subject: z.string().min(1).max(1024) }),
  responses: {
    201: {
      description: 'The new connection and its token.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['token', 'token_type', 'connection_id', 'subject', 'expires_at', 'revoke_url'],
        properties: {
          token: { type: 'string' },
          token_type: { type: 'string', enum: ['Bearer'] },
          connection_id: { type: 'string', pattern: '^conn_' },
          subject: { type: 'string' },
          expires_at: { type: 'string', format: 'date-time' },
          revoke_url: { type: 'string', format: 'uri' },
        },
      },
    },
  },
  errors: [400, 401, 413, 415, 429, 500, 503],
  handle: async (request, services) => {
    // An x402 payer's account is proven by its wallet's signature, never by the dashboard's say-so.
    if (isX402Subject(request.body.subject.trim())) {
      throw new ValidationError('A subject may not start with x402: (the accounts of x402 payers).', [
        { path: '/body/subject', message: 'must not start with x402:' },
      ]);
    }
    return { status: 201, body: await services.links.link(request.body.subject) };
  },
});
