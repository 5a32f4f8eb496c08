import * as z from 'zod';
import { linkSecretOperation } from './operation';

/** `POST /v1/link/revoke`: the dashboard revokes one connection or all of a subject's. Not shown to the model. */
export const revoke = linkSecretOperation({
  operationId: 'revoke',
  method: 'post',
  path: '/v1/link/revoke',
  summary: 'Revoke connections',
  description: "For the operator's dashboard only: revokes one connection, or every connection of a subject.",
  published: false,
  consequential: true,
  requestBody: z.xor([
    z.strictObject({ connection_id: z.string().min(1).max(128) }),
    z.strictObject({ subject: z.string().min(1).max(1024) }),
  ]),
  responses: {
    200: {
      description: 'How many connections were newly revoked.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['revoked'],
        properties: { revoked: { type: 'integer', minimum: 0 } },
      },
    },
  },
  errors: [400, 401, 413, 415, 429, 500, 503],
  handle: async (request, services) => ({ status: 200, body: { revoked: await services.links.revoke(request.body) } }),
});
