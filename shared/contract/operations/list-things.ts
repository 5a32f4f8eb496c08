import { bearerOperation } from './operation';
import { pageArgs, pageParameters, ref } from './schemas';

/**
 * The largest page of things: a thing at its largest (2,000 characters of notes, a 200-character name) is
 * 2,334 characters of JSON, so a page of 40 is 93,492 at most, under GPT Actions' 100,000 (a page of 100
 * would be 233,592). Every thing is listed whole, notes included: there is no other way to read it.
 */
export const THINGS_PAGE_LIMIT = 40;

/** `GET /v1/things`: the subject's things, newest first. */
export const listThings = bearerOperation({
  operationId: 'listThings',
  method: 'get',
  path: '/v1/things',
  summary: "List the person's things",
  description:
    `Lists the person's things whole, notes included, newest first, 25 per page unless limit says otherwise (up to ${THINGS_PAGE_LIMIT}). ` +
    'To see more, call again with cursor set to the next_cursor of the previous answer. ' +
    'Read-only and free; it shows only things this person created.',
  published: true,
  consequential: false,
  parameters: pageParameters(THINGS_PAGE_LIMIT),
  responses: { 200: { description: `A page of at most ${THINGS_PAGE_LIMIT} things.`, schema: ref('ThingPage') } },
  errors: [400, 401, 429, 500, 503],
  handle: async (request, services) => {
    const { limit, cursor } = pageArgs(request.query);
    return { status: 200, body: await services.things.list(request.principal.subject, limit, cursor) };
  },
});
