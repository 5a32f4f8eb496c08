import * as z from 'zod';
import type { OperationLimits } from '../../domain/admission/operation-limits';
import { JOB_POLL_SECONDS } from '../../domain/jobs/job';
import { type PriceRule, priceOf } from '../../domain/jobs/price';
import type { JobResult, JobSettingSpecs, PaidJob } from '../../domain/jobs/processor';
import { ValidationError } from '../../platform/errors/problems';
import type { AppCard } from '../cards/app-card';
import { JOB_CARD } from '../cards/job-card';
import { type BearerOperation, type BearerRequest, bearerOperation, type PaidBodyShape } from './operation';
import { IDEMPOTENCY_FIELD, inputPointer, jobInputOf } from './paid-body';
import { IDEMPOTENCY_KEY_SCHEMA, IdempotencyKey, ref } from './schemas';

/** What is particular to one paid asynchronous operation; {@link paidOperation} adds the rest. */
export interface PaidOperationSpec<Input, Result extends JobResult, S extends JobSettingSpecs> {
  /** The work the worker runs, with its input schema; its `operationId` names the operation. */
  job: PaidJob<Input, Result, S>;
  /** `POST` path under `/v1`, e.g. `/v1/reports`. */
  path: string;
  summary: string;
  /**
   * For the model: what it does and that it needs the person's yes. The price sentence is appended unless the
   * text states it; the two together fit 300 characters.
   */
  description: string;
  /** Charged once per accepted job: `fixedPrice(n)` or a rule over the job's input such as `perUnit({...})`. */
  price: NoInfer<PriceRule<Input>>;
  /** What one job is, in the person's words (`report`); the generated texts use it. Default `job`. */
  noun?: string;
  /** The MCP Apps card its tool results are shown in; default the job card, which shows any job. */
  card?: AppCard;
  /** The largest body accepted, in bytes; default: the body's worst case as JSON, at least 64 KiB. */
  bodyLimitBytes?: number;
  /**
   * Where the body carries the input: `wrapped` (the default), `{input, idempotency_key}`; or `top-level`,
   * the input itself as the body, the key in the `Idempotency-Key` header (or the `idempotency_key` query
   * parameter, for clients that cannot send headers). Over MCP both take the key as an `idempotency_key`
   * argument beside the input's.
   */
  body?: PaidBodyShape;
  /** Its own limits per subject (calls a minute, credits a UTC day), on top of the connector's. */
  limits?: OperationLimits;
}

/** The body of a paid operation: the job's input and, for clients that cannot send headers, the key. */
export interface PaidBody<Input> {
  input: Input;
  idempotency_key?: string;
}

/** The statuses every paid operation can answer besides its 202 (402: daily budget, 422: key reused). */
const PAID_ERRORS = [400, 401, 402, 413, 415, 422, 429, 500, 503] as const;

/**
 * A paid asynchronous operation from its own parts: adds the `Idempotency-Key` header and the
 * `idempotency_key` body field, the 202 with `Location`, `Retry-After` and `Idempotent-Replayed`, the error
 * list, and a handler that takes the key (the header wins; 400 without one), prices the input by the rule,
 * and submits the job exactly once per key. A description too long with its price sentence, or a price rule
 * whose field the input schema does not bound as the rule needs, is refused when the API starts
 * (`assertRegistryRules`) and named by its own test, not here: declaring one never aborts a test run.
 */
export function paidOperation<Input, Result extends JobResult, S extends JobSettingSpecs>(
  spec: PaidOperationSpec<Input, Result, S>,
): BearerOperation<PaidBody<Input> | Input> {
  const { job } = spec;
  // The rule is typed by the job's input where it is declared; from here on it prices whatever input passed the schema.
  const price = spec.price as PriceRule;
  const noun = spec.noun ?? 'job';
  const shape = spec.body ?? 'wrapped';
  const located = { bodyShape: shape };
  return bearerOperation({
    operationId: job.operationId,
    method: 'post',
    path: spec.path,
    summary: spec.summary,
    description: spec.description,
    published: true,
    consequential: true,
    price,
    async: { pollOperationId: 'getJob', retryAfterSeconds: JOB_POLL_SECONDS },
    parameters: keyParameters(noun, shape),
    requestBody: bodySchema(job.input, shape),
    ...(spec.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: spec.bodyLimitBytes }),
    ...(spec.limits === undefined ? {} : { limits: spec.limits }),
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
    job: job as PaidJob,
    admitsInClaim: true,
    ...(shape === 'wrapped' ? {} : located),
    card: spec.card ?? JOB_CARD,
    handle: async (request, services) => {
      const idempotencyKey = idempotencyKeyOf(request, shape);
      const input = jobInputOf(located, request.body);
      const { job: accepted, replayed } = await services.jobs.submit({
        subject: request.principal.subject,
        operation: job.operationId,
        input: input as Record<string, unknown>,
        // Priced before the claim, which needs the amount to charge and to hold against the daily budget; a
        // replay is answered with the stored job and its stored cost, never this figure.
        cost: priceOf(price, input, inputPointer(located)),
        idempotencyKey,
        ...(spec.limits?.dailyCredits === undefined ? {} : { operationDailyLimit: spec.limits.dailyCredits }),
        ...(request.funding ? { funding: request.funding } : {}),
        ...(request.admission ? { admission: request.admission } : {}),
      });
      const headers: Record<string, string> = { Location: `/v1/jobs/${accepted.id}`, 'Retry-After': String(JOB_POLL_SECONDS) };
      if (replayed) headers['Idempotent-Replayed'] = 'true';
      return { status: 202, body: accepted, headers };
    },
  });
}

/**
 * Where the key may come from besides the body: the `Idempotency-Key` header always, and for a top-level
 * body, whose fields are all the seller's, the `idempotency_key` query parameter for clients that cannot send
 * headers (GPT Actions sends query parameters, never custom headers).
 */
function keyParameters(noun: string, shape: PaidBodyShape): ReadonlyArray<Readonly<Record<string, unknown>>> {
  const header = {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description: `A unique key per ${noun} the person asked for; reuse it only to retry that same request.`,
    schema: IDEMPOTENCY_KEY_SCHEMA,
  };
  if (shape === 'wrapped') return [header];
  const query = {
    name: IDEMPOTENCY_FIELD,
    in: 'query',
    required: false,
    description: 'For platforms that cannot send headers: the same as Idempotency-Key (the header wins).',
    schema: IDEMPOTENCY_KEY_SCHEMA,
  };
  return [header, query];
}

/** The body's schema: the input under `input` beside the optional key, or the input itself. */
function bodySchema<Input>(input: z.ZodType<Input>, shape: PaidBodyShape): z.ZodType<PaidBody<Input> | Input> {
  if (shape === 'top-level') return input;
  return z.strictObject({
    input,
    [IDEMPOTENCY_FIELD]: IdempotencyKey.optional().describe(
      'For platforms that cannot send headers: the same as Idempotency-Key (the header wins).',
    ),
  }) as z.ZodType<PaidBody<Input>>;
}

/**
 * The request's idempotency key: the header, else the body field (wrapped) or the query parameter
 * (top-level); a paid call without any is a 400.
 */
export function idempotencyKeyOf(request: Omit<BearerRequest<unknown>, 'principal'>, shape: PaidBodyShape): string {
  const fallback = shape === 'top-level' ? request.query[IDEMPOTENCY_FIELD] : (request.body as PaidBody<unknown>).idempotency_key;
  const key = request.header('idempotency-key') ?? fallback;
  if (typeof key !== 'string') {
    const alternative = shape === 'top-level' ? 'an idempotency_key query parameter' : 'an idempotency_key field';
    throw new ValidationError('A paid operation needs an idempotency key.', [
      { path: '/headers/idempotency-key', message: `send an Idempotency-Key header or ${alternative}` },
    ]);
  }
  return key;
}
