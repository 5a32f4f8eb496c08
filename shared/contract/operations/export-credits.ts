import { PERIOD_PARAMETERS } from './get-credits';
import { CREDIT_ENTRY_SCHEMA } from './grant-credits';
import { linkSecretOperation } from './operation';

/**
 * `GET /v1/link/credits/export`: every account's entries as newline-delimited JSON, streamed. Each line is an
 * entry with its `subject` and the `cursor` that resumes the export after it. Not shown to the model.
 */
export const exportCredits = linkSecretOperation({
  operationId: 'exportCredits',
  method: 'get',
  path: '/v1/link/credits/export',
  summary: "Export every account's credit entries",
  description:
    "For the operator's dashboard only: every account's entries in the period, accounts by subject and each one's entries oldest first, " +
    'one JSON object per line (application/x-ndjson), each with its subject and a cursor that resumes the export after it.',
  published: false,
  consequential: false,
  parameters: [
    ...PERIOD_PARAMETERS,
    {
      name: 'cursor',
      in: 'query',
      required: false,
      description: 'The cursor of the last line received: the export resumes after it.',
      schema: { type: 'string', minLength: 1, maxLength: 2048 },
    },
  ],
  responses: {
    200: {
      description: 'The entries, one per line.',
      contentType: 'application/x-ndjson',
      schema: {
        ...CREDIT_ENTRY_SCHEMA,
        required: [...(CREDIT_ENTRY_SCHEMA.required as string[]), 'subject', 'cursor'],
        properties: { ...(CREDIT_ENTRY_SCHEMA.properties as object), subject: { type: 'string' }, cursor: { type: 'string' } },
      },
    },
  },
  errors: [400, 401, 429, 500, 503],
  handle: async (request, services) => {
    const cursor = typeof request.query.cursor === 'string' ? request.query.cursor : undefined;
    // Checked before the first line, so a bad period or cursor is a 400, not a cut stream.
    const lines = services.credits.export({ since: request.query.since, until: request.query.until, ...(cursor ? { cursor } : {}) });
    const first = await lines.next();
    return { status: 200, body: null, lines: linesOf(first, lines) };
  },
});

async function* linesOf(
  first: IteratorResult<{ entry: object; cursor: string }>,
  rest: AsyncIterator<{ entry: object; cursor: string }>,
): AsyncGenerator<string> {
  let next = first;
  while (!next.done) {
    yield JSON.stringify({ ...next.value.entry, cursor: next.value.cursor });
    next = await rest.next();
  }
}
