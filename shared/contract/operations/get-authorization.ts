import { linkSecretOperation } from './operation';

/** The `{request}` path parameter of the dashboard's consent operations. */
export const AUTHORIZATION_REQUEST_PARAMETER = {
  name: 'request',
  in: 'path',
  required: true,
  description: 'The id the consent screen received as `?request=`.',
  schema: { type: 'string', minLength: 1, maxLength: 64, pattern: '^authreq_[A-Za-z0-9_-]+$' },
} as const;

/** `GET /v1/link/authorizations/{request}`: the dashboard reads a pending OAuth request to show it. Not shown to the model. */
export const getAuthorization = linkSecretOperation({
  operationId: 'getAuthorization',
  method: 'get',
  path: '/v1/link/authorizations/{request}',
  summary: 'Read a pending authorization request',
  description: "For the operator's dashboard only: which app asks for access, for the consent screen to show.",
  published: false,
  consequential: false,
  parameters: [AUTHORIZATION_REQUEST_PARAMETER],
  responses: {
    200: {
      description: 'The pending request.',
      schema: {
        type: 'object',
        additionalProperties: false,
        required: ['request', 'client', 'expires_at'],
        properties: {
          request: { type: 'string' },
          client: {
            type: 'object',
            additionalProperties: false,
            required: ['client_id', 'client_name', 'redirect_scheme', 'redirect_host'],
            properties: {
              client_id: { type: 'string' },
              client_name: { type: 'string' },
              redirect_scheme: {
                type: 'string',
                description:
                  "The redirect URI's scheme: `https`, loopback `http`, or an app's private-use scheme such as `com.example.app`.",
              },
              redirect_host: {
                type: 'string',
                description: "The redirect URI's host (and port), as the URI has it; empty for a private-use URI without one.",
              },
            },
          },
          expires_at: { type: 'string', format: 'date-time' },
        },
      },
    },
  },
  errors: [400, 401, 404, 429, 500, 503],
  handle: async (request, services) => ({ status: 200, body: await services.oauth.consent.describe(request.params.request) }),
});
