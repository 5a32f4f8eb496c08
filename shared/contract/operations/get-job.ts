import { isTerminal, JOB_POLL_SECONDS } from '../../domain/jobs/job';
import { JOB_CARD } from '../cards/job-card';
import { bearerOperation } from './operation';
import { JOB_ID_PARAMETER, ref } from './schemas';

/** `GET /v1/jobs/{id}`: one of the subject's jobs; polled until it is terminal. */
export const getJob = bearerOperation({
  operationId: 'getJob',
  method: 'get',
  path: '/v1/jobs/{id}',
  summary: 'Check a job',
  description:
    "Gets one of the person's jobs by id. After createJob, poll it every Retry-After seconds until status is " +
    'succeeded (read result), failed (read error.message) or canceled (refunded). Read-only and free: polling ' +
    'never starts, retries or charges a job.',
  published: true,
  consequential: false,
  parameters: [JOB_ID_PARAMETER],
  responses: {
    200: {
      description: 'The job.',
      schema: ref('Job'),
      headers: {
        'Retry-After': { description: 'While the job is not final: seconds to wait before polling again.', schema: { type: 'integer' } },
      },
    },
  },
  errors: [400, 401, 404, 429, 500, 503],
  card: JOB_CARD,
  handle: async (request, services) => {
    const job = await services.jobs.get(request.principal.subject, request.params.id);
    const headers: Record<string, string> = isTerminal(job.status) ? {} : { 'Retry-After': String(JOB_POLL_SECONDS) };
    return { status: 200, body: job, headers };
  },
});
