import { fixedPrice } from '../../domain/jobs/price';
import { placeholderJob } from '../../domain/processors/placeholder-processor';
import { paidOperation } from './paid-operation';

/** `POST /v1/jobs`: start the placeholder paid job, exactly once per idempotency key. */
export const createJob = paidOperation({
  job: placeholderJob,
  path: '/v1/jobs',
  summary: 'Start a paid job (1 credit)',
  description:
    'Starts a paid job that costs 1 credit, charged once when it is accepted. Ask the person for a clear yes ' +
    'first. Send an Idempotency-Key; a retry with the same key returns the same job and is never charged again. ' +
    'Answers 202 at once: poll getJob (over MCP: get_job).',
  price: fixedPrice(1),
});
