import { JOB_POLL_SECONDS } from '../../domain/jobs/job';
import { JOB_CARD } from '../cards/job-card';
import { bearerOperation } from './operation';
import { JOB_ID_PARAMETER, ref } from './schemas';

/**
 * `DELETE /v1/jobs/{id}`: cancel one of the subject's jobs, refunding it when it never delivered: all of it
 * when it was queued, all but what its operation's `cancelCharge` keeps when it was running.
 */
export const cancelJob = bearerOperation({
  operationId: 'cancelJob',
  method: 'delete',
  path: '/v1/jobs/{id}',
  summary: 'Cancel a job',
  description:
    'Cancels a job the person no longer wants; ask them first. Queued: canceled at once and refunded in full ' +
    '(200). Running: asked to stop (202); poll getJob: it ends canceled, refunded but for what its operation ' +
    'keeps of a late cancel, or succeeded if it finished first. A finished job answers 409.',
  published: true,
  consequential: true,
  parameters: [JOB_ID_PARAMETER],
  responses: {
    200: { description: 'The job is canceled (now, or by an earlier call); refunded_credits is what was given back.', schema: ref('Job') },
    202: {
      description: 'The job is running and was asked to stop; poll it until it is final.',
      schema: ref('Job'),
      headers: {
        Location: { description: 'Where to poll the job.', schema: { type: 'string' } },
        'Retry-After': { description: 'Seconds to wait before polling.', schema: { type: 'integer' } },
      },
    },
  },
  errors: [400, 401, 404, 409, 429, 500, 503],
  card: JOB_CARD,
  handle: async (request, services) => {
    const { job, running } = await services.jobs.cancel(request.principal.subject, request.params.id);
    if (!running) return { status: 200, body: job };
    return {
      status: 202,
      body: job,
      headers: { Location: `/v1/jobs/${encodeURIComponent(job.id)}`, 'Retry-After': String(JOB_POLL_SECONDS) },
    };
  },
});
