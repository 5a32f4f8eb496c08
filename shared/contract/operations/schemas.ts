import * as z from 'zod';
import type { JsonSchema } from './operation';

/** Reference to a component schema of the generated document. */
export const ref = (name: string): JsonSchema => ({ $ref: `#/components/schemas/${name}` });

/** A date and time as every answer writes it (RFC 3339). */
export const timestamp: JsonSchema = { type: 'string', format: 'date-time' };
export const nullableTimestamp: JsonSchema = { type: ['string', 'null'], format: 'date-time' };

/** The OAuth app a connection was granted to, or null for one made by `POST /v1/link`. */
export const OAUTH_CLIENT_SCHEMA: JsonSchema = {
  type: ['object', 'null'],
  additionalProperties: false,
  required: ['client_id', 'client_name'],
  properties: { client_id: { type: 'string' }, client_name: { type: 'string' } },
};

/** The `{id}` path parameter of the operations on one job (getJob, cancelJob). */
export const JOB_ID_PARAMETER: Readonly<Record<string, unknown>> = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'The id createJob returned.',
  schema: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' },
};

/** Idempotency keys: 1..255 printable ASCII characters. */
export const IDEMPOTENCY_KEY_SCHEMA: JsonSchema = { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7E]+$' };

/** The same, as the body field of a paid operation declares it. */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x20-\x7E]+$/);

/**
 * Component schemas shared by operations. `Job`'s input and result, `JobSummary` and `JobPage` are completed
 * from the registry's paid jobs (`schemaComponents`).
 */
export const COMPONENT_SCHEMAS: Record<string, JsonSchema> = {
  Problem: {
    type: 'object',
    description: 'An RFC 9457 problem.',
    required: ['type', 'title', 'status', 'detail'],
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      instance: { type: 'string' },
      request_id: { type: 'string' },
      errors: {
        type: 'array',
        items: {
          type: 'object',
          required: ['path', 'message'],
          properties: { path: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
  },
  Usage: {
    type: 'object',
    additionalProperties: false,
    required: ['jobs_charged', 'credits_spent', 'credits_refunded'],
    properties: {
      jobs_charged: { type: 'integer', minimum: 0, description: 'Paid jobs accepted so far.' },
      credits_spent: { type: 'integer', minimum: 0, description: 'Credits charged so far, minus credits refunded.' },
      credits_refunded: { type: 'integer', minimum: 0, description: 'Credits given back for canceled or failed jobs.' },
    },
  },
  DailyBudget: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['limit', 'spent', 'remaining', 'resets_at'],
    description: "Today's credit budget (UTC day); null when there is no daily cap.",
    properties: {
      limit: { type: 'integer', minimum: 0, description: 'Credits that may be charged per UTC day.' },
      spent: { type: 'integer', minimum: 0, description: 'Credits charged today.' },
      remaining: { type: 'integer', minimum: 0, description: 'Credits left today; a paid job costing more answers 402.' },
      resets_at: { ...timestamp, description: 'When the budget resets (the next midnight UTC).' },
    },
  },
  CreditAccount: {
    type: 'object',
    additionalProperties: false,
    required: ['balance', 'held'],
    description: "The person's prepaid credits: shown only when the service sells prepaid credits.",
    properties: {
      balance: { type: 'integer', description: 'Credits that can pay for new jobs now; may be negative after an adjustment.' },
      held: { type: 'integer', minimum: 0, description: 'Credits set aside for paid jobs that have not finished.' },
    },
  },
  Identity: {
    type: 'object',
    additionalProperties: false,
    required: ['subject', 'connection_id', 'issued_at', 'expires_at', 'revoke_url', 'usage', 'daily_budget', 'client'],
    properties: {
      subject: { type: 'string', description: 'Who this connection acts for.' },
      connection_id: { type: 'string' },
      issued_at: timestamp,
      expires_at: timestamp,
      revoke_url: { type: 'string', format: 'uri', description: 'Where the person can revoke access.' },
      usage: ref('Usage'),
      daily_budget: ref('DailyBudget'),
      client: {
        ...OAUTH_CLIENT_SCHEMA,
        description: 'The app that holds this connection when it was granted through OAuth; null otherwise.',
      },
      credits: ref('CreditAccount'),
    },
  },
  Thing: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'name', 'notes', 'created_at'],
    properties: {
      id: { type: 'string', pattern: '^thing_', maxLength: 64 },
      name: { type: 'string', minLength: 1, maxLength: 200 },
      notes: { type: ['string', 'null'], maxLength: 2000 },
      created_at: timestamp,
    },
  },
  ThingPage: pageSchema(ref('Thing')),
  Job: {
    type: 'object',
    additionalProperties: false,
    required: [
      'id',
      'operation',
      'status',
      'input',
      'cost',
      'created_at',
      'started_at',
      'finished_at',
      'result',
      'error',
      'attempts',
      'progress',
      'partial',
      'cancel_requested_at',
      'refunded_credits',
    ],
    properties: {
      id: { type: 'string', pattern: '^job_' },
      operation: { type: 'string', description: 'The operation that started the job.' },
      status: {
        type: 'string',
        enum: ['queued', 'running', 'succeeded', 'failed', 'canceled'],
        description: 'queued or running: poll again later. succeeded, failed or canceled: final.',
      },
      input: { type: 'object' },
      cost: { type: 'integer', minimum: 0, description: 'Credits charged for this job (once).' },
      created_at: timestamp,
      started_at: nullableTimestamp,
      finished_at: nullableTimestamp,
      result: { type: ['object', 'null'], description: 'Set when status is succeeded.' },
      error: {
        type: ['object', 'null'],
        additionalProperties: false,
        required: ['message'],
        properties: { message: { type: 'string' } },
        description: 'Set when status is failed.',
      },
      attempts: { type: 'integer', minimum: 0 },
      progress: {
        type: ['object', 'null'],
        additionalProperties: false,
        required: ['percent', 'message', 'updated_at'],
        properties: {
          percent: { type: 'integer', minimum: 0, maximum: 100 },
          message: { type: ['string', 'null'], maxLength: 200 },
          updated_at: timestamp,
        },
        description: 'How far the job has got, as its processor last reported; null before its first report.',
      },
      partial: {
        type: ['object', 'null'],
        description: 'What the job has produced so far, while it runs; null otherwise. The result replaces it.',
      },
      cancel_requested_at: { ...nullableTimestamp, description: 'When cancelJob was called for this job; null otherwise.' },
      refunded_credits: {
        type: 'integer',
        minimum: 0,
        description: 'Credits given back: all of cost when the job was canceled or failed, else 0.',
      },
    },
  },
};

/** A page of a list: `items` of the given schema and the cursor of the next page. */
export function pageSchema(items: JsonSchema): JsonSchema {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['items', 'next_cursor'],
    properties: {
      items: { type: 'array', items },
      next_cursor: { type: ['string', 'null'], maxLength: 64, description: 'Pass as cursor for the next page; null on the last page.' },
    },
  };
}

/** The largest `limit` a list takes unless its items are too big for a page of that many ({@link pageParameters}). */
export const MAX_PAGE_LIMIT = 100;

/**
 * `limit` (1 to `maxLimit`, default 25) and `cursor` query parameters of a list. A list whose items are large
 * takes a lower `maxLimit`, so that a full page at its largest stays under GPT Actions' 100,000 characters.
 */
export function pageParameters(maxLimit: number = MAX_PAGE_LIMIT): ReadonlyArray<Record<string, unknown>> {
  return [
    {
      name: 'limit',
      in: 'query',
      required: false,
      description: `How many items to return (1 to ${maxLimit}).`,
      schema: { type: 'integer', minimum: 1, maximum: maxLimit, default: Math.min(25, maxLimit) },
    },
    {
      name: 'cursor',
      in: 'query',
      required: false,
      description: 'The next_cursor of the previous page.',
      schema: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' },
    },
  ];
}

/** `limit` (1 to 100, default 25) and `cursor` query parameters of a list of small items. */
export const PAGE_PARAMETERS: ReadonlyArray<Record<string, unknown>> = pageParameters();

/** Reads the validated `limit` (defaulted by the schema) and `cursor` of a list request. */
export function pageArgs(query: Record<string, unknown>): { limit: number; cursor?: string } {
  const limit = Number(query.limit ?? 25);
  return { limit: Number.isInteger(limit) ? limit : 25, cursor: typeof query.cursor === 'string' ? query.cursor : undefined };
}
