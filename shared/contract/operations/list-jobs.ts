import { bearerOperation } from './operation';
import { PAGE_PARAMETERS, pageArgs, ref } from './schemas';

/** `GET /v1/jobs`: the subject's jobs, newest first. */
export const listJobs = bearerOperation({
  operationId: 'listJobs',
  method: 'get',
  path: '/v1/jobs',
  summary: "List the person's jobs",
  description:
    "Lists the person's jobs, newest first, with status and a summary of each input and result (getJob shows a " +
    'job whole), 25 per page unless limit says otherwise (up to 100). To see more, call again with cursor set to ' +
    'next_cursor. Read-only and free: it never starts, retries or charges a job.',
  published: true,
  consequential: false,
  parameters: PAGE_PARAMETERS,
  responses: { 200: { description: 'A page of jobs, each summarised.', schema: ref('JobPage') } },
  errors: [400, 401, 429, 500, 503],
  handle: async (request, services) => {
    const { limit, cursor } = pageArgs(request.query);
    return { status: 200, body: await services.jobs.list(request.principal.subject, limit, cursor) };
  },
});
