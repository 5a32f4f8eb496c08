import { bearerOperation } from './operation';
import { PAGE_PARAMETERS, pageArgs, ref } from './schemas';

/** `GET /v1/things`: the subject's things, newest first. */
export const listThings = bearerOperation({
  operationId: 'listThings',
  method: 'get',
  path: '/v1/things',
  summary: "List the person's things",
  description:
    "Lists the person's things, newest first, 25 per page unless limit says otherwise (up to 100). " +
    'To see more, call again with cursor set to the next_cursor of the previous answer. ' +
    'Read-only and free; it shows only things this person created.',
  published: true,
  consequential: false,
  parameters: PAGE_PARAMETERS,
  responses: { 200: { description: 'A page of things.', schema: ref('ThingPage') } },
  errors: [400, 401, 429, 500, 503],
  handle: async (request, services) => {
    const { limit, cursor } = pageArgs(request.query);
    return { status: 200, body: await services.things.list(request.principal.subject, limit, cursor) };
  },
});
