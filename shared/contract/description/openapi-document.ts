import { publishedLimits } from '../../domain/admission/operation-limits';
import { publishedPrice } from '../../domain/jobs/price';
import { DEFAULT_CANCEL_CHARGE } from '../../domain/jobs/processor';
import { OAUTH_PATHS } from '../../domain/oauth/discovery';
import { bodyLimitOf, DEFAULT_BODY_LIMIT_BYTES } from '../operations/body-limit';
import { modelDescription } from '../operations/model-description';
import type { Operation, ResponseSpec } from '../operations/operation';
import { requestBodySchema, schemaComponents } from '../operations/registry-schemas';
import { CHAIN_ERRORS } from './chain-errors';
import { ERROR_RESPONSES } from './error-responses';
import { rateLimitHeaderSpecs } from './rate-limit-header-specs';
import { SERVICE_INFO } from './service-info';

/** An OpenAPI 3.1 document, as plain JSON. */
// biome-ignore lint/suspicious/noExplicitAny: open-ended JSON, built here and checked against the OpenAPI 3.1 schema by the tests
export type OpenApiDocument = Record<string, any>;

const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/**
 * Builds the OpenAPI 3.1 document from the registry. `serverUrl` is `PUBLIC_URL` for the published copy and
 * `/` for the validator's copy (the validator only checks paths under the server URL's path). The internal
 * copy also carries the dashboard's operations, so the same generator validates them too.
 */
export function buildOpenApiDocument(operations: readonly Operation[], serverUrl: string): OpenApiDocument {
  const paths: Record<string, Record<string, unknown>> = {};
  const internal = operations.some((operation) => operation.auth === 'link-secret');
  // The published copy (an absolute server URL) also offers OAuth 2.1; the validator's copy does not check
  // security, so it has no need of absolute endpoint URLs.
  const oauthBase = /^https?:\/\//.test(serverUrl) ? serverUrl.replace(/\/+$/, '') : undefined;
  const components = schemaComponents(operations);
  const limits = new Map(operations.map((operation) => [operation, bodyLimitOf(operation, components)]));
  for (const operation of operations) {
    paths[operation.path] ??= {};
    paths[operation.path][operation.method] = operationObject(operation, oauthBase !== undefined, limits.get(operation)!);
  }
  const securitySchemes: Record<string, unknown> = {
    bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'The token the person got when connecting.' },
  };
  if (oauthBase) {
    securitySchemes.oauth2 = {
      type: 'oauth2',
      description: "OAuth 2.1 authorization code with PKCE (S256); the operator's dashboard is the consent screen.",
      flows: {
        authorizationCode: {
          authorizationUrl: `${oauthBase}${OAUTH_PATHS.authorize}`,
          tokenUrl: `${oauthBase}${OAUTH_PATHS.token}`,
          refreshUrl: `${oauthBase}${OAUTH_PATHS.token}`,
          scopes: {},
        },
      },
    };
  }
  if (internal) securitySchemes.linkSecret = { type: 'apiKey', in: 'header', name: 'x-link-secret' };
  return {
    openapi: '3.1.0',
    info: { title: SERVICE_INFO.name, version: SERVICE_INFO.version, description: SERVICE_INFO.summary },
    servers: [{ url: serverUrl }],
    paths,
    components: {
      schemas: components,
      responses: errorComponents(Math.max(DEFAULT_BODY_LIMIT_BYTES, ...limits.values())),
      securitySchemes,
    },
  };
}

function operationObject(operation: Operation, oauth: boolean, bodyLimit: number): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, spec] of Object.entries(operation.responses)) responses[status] = successResponse(spec);
  const errors = [...new Set([...operation.errors, ...CHAIN_ERRORS])].sort((a, b) => a - b);
  for (const status of errors) responses[String(status)] = { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` };
  const object: Record<string, unknown> = {
    operationId: operation.operationId,
    summary: operation.summary,
    description: modelDescription(operation),
    security: operation.auth === 'bearer' ? [{ bearerAuth: [] }, ...(oauth ? [{ oauth2: [] }] : [])] : [{ linkSecret: [] }],
  };
  if (operation.parameters) object.parameters = operation.parameters;
  const body = requestBodySchema(operation);
  if (body) {
    // A limit above the usual 64 KiB is stated where it applies; the 413 answer refers to it.
    const limit = bodyLimit > DEFAULT_BODY_LIMIT_BYTES ? { description: `At most ${bodyLimit} bytes of JSON.` } : {};
    object.requestBody = { ...limit, required: true, content: { 'application/json': { schema: body } } };
  }
  object.responses = responses;
  object['x-openai-isConsequential'] = operation.consequential;
  if (operation.price) {
    object['x-requires-confirmation'] = true;
    object['x-cost'] = {
      ...publishedPrice(operation.price),
      ...(operation.job ? { cancel_charge: operation.job.cancelCharge ?? DEFAULT_CANCEL_CHARGE } : {}),
    };
  }
  if (operation.limits) object['x-limits'] = publishedLimits(operation.limits);
  if (operation.async) {
    object['x-long-running'] = true;
    object['x-poll-operationId'] = operation.async.pollOperationId;
  }
  return object;
}

/** Every operation passes the rate limiter, so every success answer also carries its headers. */
function successResponse(spec: ResponseSpec): Record<string, unknown> {
  return {
    description: spec.description,
    headers: { ...spec.headers, ...rateLimitHeaderSpecs(true) },
    content: { [spec.contentType ?? 'application/json']: { schema: spec.schema } },
  };
}

/** The error responses; the 413's wording names the largest body limit when an operation takes more than 64 KiB. */
function errorComponents(largestBodyLimit: number): Record<string, unknown> {
  const components: Record<string, unknown> = {};
  for (const [status, { name, description, headers }] of Object.entries(ERROR_RESPONSES)) {
    const larger = status === '413' && largestBodyLimit > DEFAULT_BODY_LIMIT_BYTES;
    components[name] = {
      description: larger ? "The body is over the operation's limit: 64 KiB, or the larger limit its request body states." : description,
      ...(headers ? { headers } : {}),
      content: { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: '#/components/schemas/Problem' } } },
    };
  }
  return components;
}
