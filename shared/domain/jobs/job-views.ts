import * as z from 'zod';

/*
 * How a job shows its input and result. A job is read in full (`GET /v1/jobs/{id}`, the 202 and cancel
 * answers, the MCP tools and tasks that return one job, and so the MCP Apps card), listed (`GET /v1/jobs`),
 * where a page of up to 100 jobs must stay under GPT Actions' 100,000 characters whatever each input holds,
 * and sent in webhook events. Each paid job may declare its own view for any of them; the defaults are the
 * whole input and result when read, a summary bounded in characters when listed, and the read view in events.
 */

/** Where a job is shown. */
export type JobViewName = 'read' | 'list' | 'event';

/** One part of a view: what it shows of the input (or result), and the schema that says so (published). */
export interface ViewPart<From, To extends object = object> {
  readonly schema: z.ZodType<To>;
  show(from: From): To;
}

/** How a job of one operation shows in one place; an absent part takes the default. */
export interface JobView<Input, Result> {
  readonly input?: ViewPart<Input>;
  readonly result?: ViewPart<Result>;
}

/** A paid job's own views: `read` (one job), `list` (a page of jobs) and `event` (a webhook's data). */
export type JobViews<Input, Result> = { readonly [V in JobViewName]?: JobView<Input, Result> };

/** Fields of an input or result a listed job shows by default, and the JSON characters each value may take. */
export const SUMMARY_FIELDS = 3;
export const SUMMARY_VALUE_CHARS = 28;
/** The longest field name a default summary keeps (a longer one is left out). */
export const SUMMARY_NAME_CHARS = 24;
/** How long a listed job's progress message and error message may be, in characters. */
export const LISTED_PROGRESS_CHARS = 40;
export const LISTED_ERROR_CHARS = 64;
/** How long a read job's error message may be: a safe message is one or two sentences. */
export const READ_ERROR_CHARS = 500;
/** How long a job's id and operation are at most (`job_` and 32 characters; an operationId). */
export const JOB_ID_CHARS = 36;
export const OPERATION_ID_CHARS = 64;

/** What a default summary's values may be: a number, a boolean, null, or a string cut to its budget. */
export const SummaryValue = z.union([z.string().max(SUMMARY_VALUE_CHARS), z.number(), z.boolean(), z.null()]);

/**
 * The default list view of an input or a result: its first {@link SUMMARY_FIELDS} fields, numbers, booleans
 * and null as they are, anything else as text cut (ending in …) to {@link SUMMARY_VALUE_CHARS} characters.
 */
export const DEFAULT_SUMMARY = z
  .record(z.string().max(SUMMARY_NAME_CHARS), SummaryValue)
  .meta({ maxProperties: SUMMARY_FIELDS })
  .describe(
    `In a list: the first ${SUMMARY_FIELDS} fields, each number, boolean or null as it is and anything else as text cut ` +
      `(ending in …) to ${SUMMARY_VALUE_CHARS} characters; getJob shows the whole.`,
  );

/** Cuts `text` to at most `length` characters (code points), marking a cut with an ellipsis; control characters become spaces. */
export function clip(text: string, length: number): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced
  const plain = text.replace(/[\u0000-\u001f\u007f]/g, ' ');
  const points = [...plain];
  return points.length <= length ? plain : `${points.slice(0, Math.max(0, length - 1)).join('')}…`;
}

/** The default summary of an input or a result: see {@link DEFAULT_SUMMARY}. */
export function summarise(value: unknown): Record<string, unknown> {
  const summary: Record<string, unknown> = {};
  if (value === null || typeof value !== 'object') return summary;
  for (const [name, field] of Object.entries(value)) {
    if (Object.keys(summary).length >= SUMMARY_FIELDS) break;
    if ([...name].length > SUMMARY_NAME_CHARS) continue;
    summary[name] = summaryValue(field);
  }
  return summary;
}

function summaryValue(field: unknown): unknown {
  if (field === null || typeof field === 'boolean' || (typeof field === 'number' && Number.isFinite(field))) return field;
  const text = typeof field === 'string' ? field : (JSON.stringify(field) ?? '');
  return clip(text, SUMMARY_VALUE_CHARS);
}
