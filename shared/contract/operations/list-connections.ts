import { type JsonSchema, linkSecretOperation } from './operation';
import { nullableTimestamp, OAUTH_CLIENT_SCHEMA, PAGE_PARAMETERS, pageArgs, pageSchema, timestamp } from './schemas';

/** The `subject` query parameter of the dashboard's reads; normalised as `/v1/link` normalises it. */
export const SUBJECT_QUERY_PARAMETER = {
  name: 'subject',
  in: 'query',
  required: true,
  description: 'The subject, as given to /v1/link (trimmed and NFC-normalised the same way).',
  schema: { type: 'string', minLength: 1, maxLength: 1024 },
} as const;

/** A connection as the dashboard's list shows it (`toConnectionView`, which connection events carry too). */
const CONNECTION_VIEW_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['connection_id', 'subject', 'kind', 'client', 'created_at', 'last_used_at', 'expires_at', 'revoked'],
  properties: {
    connection_id: { type: 'string', pattern: '^conn_' },
    subject: { type: 'string' },
    kind: { type: 'string', enum: ['link', 'oauth'], description: 'link: made by POST /v1/link; oauth: an app the person approved.' },
    client: OAUTH_CLIENT_SCHEMA,
    created_at: timestamp,
    last_used_at: { ...nullableTimestamp, description: 'The last call with its token, to the minute; null until the first.' },
    expires_at: timestamp,
    revoked: { type: 'boolean' },
  },
};

/** `GET /v1/link/connections`: the dashboard lists a subject's connections. Not shown to the model. */
export const listConnections = linkSecretOperation({
  operationId: 'listConnections',
  method: 'get',
  path: '/v1/link/connections',
  summary: "List a subject's connections",
  description: "For the operator's dashboard only: the subject's connections (linked tokens and approved apps), newest first.",
  published: false,
  consequential: false,
  parameters: [
    SUBJECT_QUERY_PARAMETER,
    {
      name: 'include_revoked',
      in: 'query',
      required: false,
      description: 'Also list revoked connections (until they expire).',
      schema: { type: 'boolean', default: false },
    },
    ...PAGE_PARAMETERS,
  ],
  responses: {
    200: {
      description: 'A page of connections.',
      schema: pageSchema(CONNECTION_VIEW_SCHEMA),
    },
  },
  errors: [400, 401, 429, 500, 503],
  handle: async (request, services) => {
    const { limit, cursor } = pageArgs(request.query);
    const includeRevoked = request.query.include_revoked === true || request.query.include_revoked === 'true';
    return { status: 200, body: await services.links.list(String(request.query.subject), { includeRevoked, limit, cursor }) };
  },
});
