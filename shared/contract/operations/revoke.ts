import type { Operation } from './operation';

/** `POST /v1/link/revoke`: the dashboard revokes one connection or all of a subject's. Not shown to the model. */
export const revoke: Operation = {
  operationId: 'revoke',
  method: 'post',
  path: '/v1/link/revoke',
  summary: 'Revoke connections',
  description: "For the operator's dashboard only: revokes one connection, or every connection of a subject.",
  auth: 'link-secret',
  published: false,
  consequential: true,
  requestBody: {
    oneOf: [
      {
        type: 'object',
        additionalProperties: false,
        required: ['connection_id'],
        properties: { connection_id: { type: 'string', minLength: 1, maxLength: 128 } },
      },
      {
        type: 'object',
        additionalProperties: false,
        required: ['subject'],
        properties: { subject: { type: 'string', minLength: 1, maxLength: 1024 } },
      },
    ],
  },
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
};
