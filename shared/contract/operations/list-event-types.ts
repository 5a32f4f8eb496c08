import { linkSecretOperation } from './operation';

/** `GET /v1/link/event-types`: the dashboard reads every event type the connector can send, with its data's schema. */
export const listEventTypes = linkSecretOperation({
  operationId: 'listEventTypes',
  method: 'get',
  path: '/v1/link/event-types',
  summary: 'List the webhook event types',
  description:
    "For the operator's dashboard only: every webhook event type the connector can send, its own and the ones " +
    'its operations declare, each with who sends it, when, and the JSON Schema of its data.',
  published: false,
  consequential: false,
  responses: {
    200: {
      description: 'The event types: the connector’s own first, then the operations’ in registry order.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['event_types'],
        properties: {
          event_types: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['type', 'source', 'description', 'data_schema'],
              properties: {
                type: { type: 'string', description: 'The body’s `type`, e.g. job.succeeded.' },
                source: { type: 'string', description: '`connector` for its own events, else the operationId that emits it.' },
                description: { type: 'string' },
                data_schema: { type: 'object', description: 'The JSON Schema (draft 2020-12) of the body’s `data`.' },
              },
            },
          },
        },
      },
    },
  },
  errors: [401, 429, 500],
  handle: async (_request, services) => ({ status: 200, body: { event_types: services.eventTypes } }),
});
