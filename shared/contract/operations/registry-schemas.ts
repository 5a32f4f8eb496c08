import type * as z from 'zod';
import {
  DEFAULT_SUMMARY,
  JOB_ID_CHARS,
  type JobViewName,
  LISTED_ERROR_CHARS,
  LISTED_PROGRESS_CHARS,
  OPERATION_ID_CHARS,
  READ_ERROR_CHARS,
} from '../../domain/jobs/job-views';
import { MAX_PARTIAL_BYTES } from '../../domain/jobs/partial-result';
import type { PaidJob } from '../../domain/jobs/processor';
import type { JsonSchema, Operation } from './operation';
import { paidJobsOf } from './paid-jobs';
import { mergeComponents, publishedSchema } from './published-schema';
import { COMPONENT_SCHEMAS, pageSchema, ref } from './schemas';

/** The JSON Schema of an operation's body, as published and enforced; undefined without a body. */
export function requestBodySchema(operation: Pick<Operation, 'requestBody'>): JsonSchema | undefined {
  return operation.requestBody ? publishedSchema(operation.requestBody).schema : undefined;
}

/**
 * Every component schema a registry's documents refer to: the shared ones, those its operations' schemas
 * name, and the job views of its paid jobs (`Job` as one job is read, `JobSummary` as a list shows it). The
 * same map serves `/openapi.json` and the MCP tools, which inline it.
 */
export function schemaComponents(operations: readonly Operation[]): Record<string, JsonSchema> {
  const components = { ...COMPONENT_SCHEMAS };
  for (const operation of operations) {
    if (operation.requestBody) mergeComponents(components, publishedSchema(operation.requestBody).components);
  }
  return Object.assign(components, jobComponents(operations, components));
}

/** What a part of a view publishes: each job's schema for it, or the default when the job declares none. */
type PartSchema = (job: PaidJob) => z.ZodType | undefined;

/**
 * `Job` and `JobSummary` as the registry's paid jobs show them: the input and result of each operation's job
 * (its read or list view), the ids and messages bounded, so that a document reader (the doctor) can size
 * the largest answer; and `JobPage`, a page of summaries.
 */
function jobComponents(operations: readonly Operation[], components: Record<string, JsonSchema>): Record<string, JsonSchema> {
  const base = COMPONENT_SCHEMAS.Job;
  const jobs = paidJobsOf(operations);
  // The registry bounds the operation a job names: its longest paid operation id. (Not the cost: a job keeps
  // what it was charged under the rule of its day, which a later price may not bound.)
  const longestId = Math.max(0, ...jobs.map((job) => job.operationId.length));
  const read: Record<string, JsonSchema> = {
    id: { ...property(base, 'id'), maxLength: JOB_ID_CHARS },
    operation: { ...property(base, 'operation'), maxLength: jobs.length > 0 ? longestId : OPERATION_ID_CHARS },
    input: viewSchema(
      jobs,
      components,
      viewPart('read', 'input', (job) => job.input),
    ),
    result: nullable(
      viewSchema(
        jobs,
        components,
        viewPart('read', 'result', (job) => job.result),
      ),
      'Set when status is succeeded.',
    ),
    error: messageBounded(property(base, 'error'), READ_ERROR_CHARS),
    partial: nullable(
      viewSchema(jobs, components, (job) => job.partial, { optional: true }),
      `What the job has produced so far (at most ${MAX_PARTIAL_BYTES} bytes of JSON), while it runs; null before its first, ` +
        'on a new attempt and once it has ended: the result replaces it.',
    ),
  };
  const listed: Record<string, JsonSchema> = {
    ...read,
    input: viewSchema(
      jobs,
      components,
      viewPart('list', 'input', () => DEFAULT_SUMMARY),
    ),
    result: nullable(
      viewSchema(
        jobs,
        components,
        viewPart('list', 'result', () => DEFAULT_SUMMARY),
      ),
      'Set when status is succeeded: a summary (getJob shows the whole result).',
    ),
    progress: messageBounded(property(base, 'progress'), LISTED_PROGRESS_CHARS),
    error: messageBounded(property(base, 'error'), LISTED_ERROR_CHARS),
    partial: { type: 'null', description: 'Always null in a list: getJob shows what a running job has produced so far.' },
  };
  return {
    Job: withProperties(base, read),
    JobSummary: {
      ...withProperties(base, listed),
      description: 'A job as a list shows it: its input and result summarised, its messages cut; getJob shows it whole.',
    },
    JobPage: pageSchema(ref('JobSummary')),
  };
}

/** The schema of one part of a view for a job: the view's own, else `fallback` (none: any object). */
function viewPart(view: JobViewName, part: 'input' | 'result', fallback: PartSchema): PartSchema {
  return (job) => job.views?.[view]?.[part]?.schema ?? fallback(job);
}

/**
 * One schema for the part across the jobs: each job's, once; an open object when there is no job or no schema.
 * An `optional` part (the partial results) counts only the jobs that declare one.
 */
function viewSchema(
  jobs: readonly PaidJob[],
  components: Record<string, JsonSchema>,
  part: PartSchema,
  { optional = false } = {},
): JsonSchema {
  const schemas = new Map<string, JsonSchema>();
  for (const job of jobs) {
    const type = part(job);
    if (optional && !type) continue;
    const schema: JsonSchema = type ? publishedSchema(type).schema : { type: 'object' };
    if (type) mergeComponents(components, publishedSchema(type).components);
    schemas.set(JSON.stringify(schema), schema);
  }
  if (schemas.size === 0) return { type: 'object' };
  const [first, ...others] = schemas.values();
  return others.length === 0 ? first : { anyOf: [first, ...others] };
}

/** The schema or null: a single inline object becomes `type: ['object', 'null']`, as the documents write it. */
function nullable(schema: JsonSchema, description: string): JsonSchema {
  if (schema.type === 'object') return { ...schema, type: ['object', 'null'], description };
  return { anyOf: [schema, { type: 'null' }], description };
}

function property(schema: JsonSchema, name: string): JsonSchema {
  return (schema.properties as Record<string, JsonSchema>)[name];
}

/** An object schema whose `message` is cut to `length`. */
function messageBounded(schema: JsonSchema, length: number): JsonSchema {
  const properties = schema.properties as Record<string, JsonSchema>;
  return { ...schema, properties: { ...properties, message: { ...properties.message, maxLength: length } } };
}

function withProperties(schema: JsonSchema, replaced: Record<string, JsonSchema>): JsonSchema {
  return { ...schema, properties: { ...(schema.properties as Record<string, JsonSchema>), ...replaced } };
}
