import * as z from 'zod';
import { bearerOperation } from './operation';
import { ref } from './schemas';

/** `POST /v1/things`: save a new thing for the subject. */
/** A new thing: a name and optional notes. */
const NewThing = z.strictObject({
  name: z.string().min(1).max(200).describe('A short name for the thing.'),
  notes: z.string().max(2000).describe('Optional free-text notes.').optional(),
});

export const createThing = bearerOperation({
  operationId: 'createThing',
  method: 'post',
  path: '/v1/things',
  summary: 'Save a new thing',
  description:
    'Saves a new thing for the person: a name (1 to 200 characters) and optional notes (up to 2000). Free. ' +
    'Every call saves another thing, even with the same name, so call it once for each thing the person asked ' +
    'to save. It cannot edit or delete things.',
  published: true,
  consequential: true,
  requestBody: NewThing,
  responses: { 201: { description: 'The saved thing.', schema: ref('Thing') } },
  errors: [400, 401, 413, 415, 429, 500, 503],
  handle: async (request, services) => ({
    status: 201,
    body: await services.things.create(request.principal.subject, request.body),
  }),
});
