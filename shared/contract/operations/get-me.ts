import { bearerOperation } from './operation';
import { ref } from './schemas';

/** `GET /v1/me`: who the token acts for, and what they have been charged. */
export const getMe = bearerOperation({
  operationId: 'getMe',
  method: 'get',
  path: '/v1/me',
  summary: 'Show who this connection acts for',
  description:
    "Shows who this connection acts for: the person's subject, when access was granted and when it expires, " +
    'where the person can revoke it, the jobs and credits charged so far, and what is left of ' +
    "today's credit budget (null when there is no cap). " +
    'Read-only and free: it changes nothing.',
  readsUsage: true,
  published: true,
  consequential: false,
  responses: { 200: { description: 'The current identity.', schema: ref('Identity') } },
  errors: [401, 429, 500, 503],
  handle: async (request, services) => ({ status: 200, body: await services.identity.describe(request.principal, request.usage) }),
});
