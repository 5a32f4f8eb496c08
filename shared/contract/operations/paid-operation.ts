import { JOB_POLL_SECONDS } from '../../domain/jobs/job';
import { type PriceRule, priceOf } from '../../domain/jobs/price';
import type { PaidJob } from '../../domain/jobs/processor';
import { ValidationError } from '../../platform/errors/validation-error';
import type { AppCard } from '../mcp/job-card/app-card';
import { JOB_CARD } from '../mcp/job-card/job-card';
import { MAX_DESCRIPTION_LENGTH, modelDescription } from './model-description';
import type { JsonSchema, Operation, OperationRequest } from './operation';
import { IDEMPOTENCY_KEY_SCHEMA, ref } from './schemas';

/** What is particular to one paid asynchronous operation; {@link paidOperation} adds the rest. */
export interface PaidOperationSpec {
  /** The work the worker runs (also listed in `PAID_JOBS`); its `operationId` names the operation. */
  job: PaidJob;
  /** `POST` path under `/v1`, e.g. `/v1/reports`. */
  path: string;
  summary: string;
  /** At most 300 characters, for the model: what it does, what it costs, that it needs the person's yes. */
  description: string;
  /** The schema of the body's `input` field: what the processor receives. */
  input: JsonSchema;
  /** Charged once per accepted job: `fixedPrice(n)` or a rule over `input` such as `perUnit({...})`. */
  price: PriceRule;
  /** What one job is, in the person's words (`report`); the generated texts use it. Default `job`. */
  noun?: string;
  /** The MCP Apps card its tool results are shown in; default the job card, which shows any job. */
  card?: AppCard;
}

/** The statuses every paid operation can answer besides its 202 (402: daily budget, 422: key reused). */
const PAID_ERRORS = [400, 401, 402, 413, 415, 422, 429, 500, 503] as const;

/**
 * A paid asynchronous operation from its own parts: adds the `Idempotency-Key` header and the
 * `idempotency_key` body field, the 202 with `Location`, `Retry-After` and `Idempotent-Replayed`, the error
 * list, and a handler that takes the key (the header wins; 400 without one), prices the input by the rule,
 * and submits the job exactly once per key.
 */
export function paidOperation(spec: PaidOperationSpec): Operation {
  const { job, price } = spec;
  const noun = spec.noun ?? 'job';
  const composed = modelDescription(spec);
  if (composed.length > MAX_DESCRIPTION_LENGTH) {
    throw new Error(
      `${job.operationId}: the description with its price sentence is ${composed.length} characters (max ${MAX_DESCRIPTION_LENGTH}); ` +
        'shorten it, or state the price in the text',
    );
  }
  return {
    operationId: job.operationId,
    method: 'post',
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    auth: 'bearer',
    published: true,
    consequential: true,
    price,
    async: { pollOperationId: 'getJob', retryAfterSeconds: JOB_POLL_SECONDS },
    parameters: [
      {
        name: 'Idempotency-Key',
        in: 'header',
        required: false,
        description: `A unique key per ${noun} the person asked for; reuse it only to retry that same request.`,
        schema: IDEMPOTENCY_KEY_SCHEMA,
      },
    ],
    requestBody: {
      type: 'object',
      additionalProperties: false,
      required: ['input'],
      properties: {
        input: spec.input,
        idempotency_key: {
          ...IDEMPOTENCY_KEY_SCHEMA,
          description: 'For platforms that cannot send headers: the same as Idempotency-Key (the header wins).',
        },
      },
    },
    responses: {
      202: {
        description: `The ${noun} was accepted (or, on a retry with the same key, the job accepted before).`,
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
    errors: PAID_ERRORS,
    job,
    card: spec.card ?? JOB_CARD,
    handle: async (request, services) => {
      const idempotencyKey = idempotencyKeyOf(request);
      const input: Record<string, unknown> = request.body.input;
      const { job: accepted, replayed } = await services.jobs.submit({
        subject: request.principal!.subject,
        operation: job.operationId,
        input,
        // Priced before the claim, which needs the amount to charge and to hold against the daily budget; a
        // replay is answered with the stored job and its stored cost, never this figure.
        cost: priceOf(price, input),
        idempotencyKey,
      });
      const headers: Record<string, string> = { Location: `/v1/jobs/${accepted.id}`, 'Retry-After': String(JOB_POLL_SECONDS) };
      if (replayed) headers['Idempotent-Replayed'] = 'true';
      return { status: 202, body: accepted, headers };
    },
  };
}

/** The request's idempotency key: the header, else the body field; a paid call without either is a 400. */
function idempotencyKeyOf(request: OperationRequest): string {
  const key: string | undefined = request.header('idempotency-key') ?? request.body.idempotency_key;
  if (key === undefined) {
    throw new ValidationError('A paid operation needs an idempotency key.', [
      { path: '/headers/idempotency-key', message: 'send an Idempotency-Key header or an idempotency_key field' },
    ]);
  }
  return key;
}
