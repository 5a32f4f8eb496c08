import { ValidationError } from '../../platform/errors/validation-error';
import { JOB_POLL_SECONDS } from '../../domain/jobs/job';
import { placeholderJob } from '../../domain/processors/placeholder-processor';
import type { Operation } from './operation';
import { IDEMPOTENCY_KEY_SCHEMA, ref } from './schemas';

const OPERATION_ID = placeholderJob.operationId;
const COST = 1;

/** `POST /v1/jobs`: start the placeholder paid job, exactly once per idempotency key. */
export const createJob: Operation = {
  operationId: OPERATION_ID,
  method: 'post',
  path: '/v1/jobs',
  summary: 'Start a paid job (1 credit)',
  description:
    'Starts a paid job that costs 1 credit, charged once when it is accepted. Ask the person for a clear yes ' +
    'first. Send an Idempotency-Key; a retry with the same key returns the same job and is never charged again. ' +
    'Answers 202 at once: poll getJob (over MCP: get_job) for the result.',
  auth: 'bearer',
  published: true,
  consequential: true,
  cost: COST,
  async: { pollOperationId: 'getJob', retryAfterSeconds: JOB_POLL_SECONDS },
  parameters: [
    {
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      description: 'A unique key per job the person asked for; reuse it only to retry that same request.',
      schema: IDEMPOTENCY_KEY_SCHEMA,
    },
  ],
  requestBody: {
    type: 'object',
    additionalProperties: false,
    required: ['input'],
    properties: {
      input: ref('JobInput'),
      idempotency_key: {
        ...IDEMPOTENCY_KEY_SCHEMA,
        description: 'For platforms that cannot send headers: the same as Idempotency-Key (the header wins).',
      },
    },
  },
  responses: {
    202: {
      description: 'The job was accepted (or, on a retry with the same key, the job accepted before).',
      schema: ref('Job'),
      headers: {
        Location: { description: 'Where to poll the job.', schema: { type: 'string' }, required: true },
        'Retry-After': { description: 'Seconds to wait before polling.', schema: { type: 'integer' }, required: true },
        'Idempotent-Replayed': {
          description: 'true when this answer replays an earlier request.',
          schema: { type: 'string', enum: ['true'] },
        },
      },
    },
  },
  errors: [400, 401, 402, 413, 415, 422, 429, 500, 503],
  job: placeholderJob,
  handle: async (request, services) => {
    const idempotencyKey: string | undefined = request.header('idempotency-key') ?? request.body.idempotency_key;
    if (idempotencyKey === undefined) {
      throw new ValidationError('A paid operation needs an idempotency key.', [
        { path: '/headers/idempotency-key', message: 'send an Idempotency-Key header or an idempotency_key field' },
      ]);
    }
    const { job, replayed } = await services.jobs.submit({
      subject: request.principal!.subject,
      operation: OPERATION_ID,
      input: request.body.input,
      cost: COST,
      idempotencyKey,
    });
    const headers: Record<string, string> = { Location: `/v1/jobs/${job.id}`, 'Retry-After': String(JOB_POLL_SECONDS) };
    if (replayed) headers['Idempotent-Replayed'] = 'true';
    return { status: 202, body: job, headers };
  },
};
