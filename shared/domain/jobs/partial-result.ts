import type * as z from 'zod';
import type { AttemptReport, JobProgress, PartialResult } from './progress-reporter';

/*
 * Partial results: what a processor has produced so far while its job runs (the chunks translated, the pages
 * written), declared with the job as a zod schema (`PaidJob.partial`) and bounded in size, so that a job read
 * while it runs shows it (`Job.partial`), an MCP client waiting on the task receives it, and the card renders
 * it. The final result replaces it: a job that has ended shows none.
 */

/** The largest partial result kept: its JSON, in bytes (UTF-8). A page of jobs never carries one. */
export const MAX_PARTIAL_BYTES = 16 * 1024;

/** What a processor is told when its partial result is refused: the operation, the rule broken, and why. */
export class PartialResultError extends TypeError {
  override readonly name = 'PartialResultError';
}

/**
 * The partial result a processor published, checked against its job's declared `schema` and against
 * {@link MAX_PARTIAL_BYTES}, as the copy stored (a JSON snapshot: what the processor changes later is not
 * what was published). Throws a {@link PartialResultError} naming the operation and the rule it broke.
 */
export function checkedPartial(operationId: string, schema: z.ZodType | undefined, value: unknown): PartialResult {
  if (!schema) throw new PartialResultError(`${operationId} declares no partial schema, so it cannot publish a partial result.`);
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    throw new PartialResultError(`${operationId}: a partial result must fit its declared schema (${issue.message}${where}).`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new PartialResultError(`${operationId}: a partial result must be a JSON object.`);
  }
  const json = JSON.stringify(value);
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes > MAX_PARTIAL_BYTES) {
    throw new PartialResultError(
      `${operationId}: a partial result may take at most ${MAX_PARTIAL_BYTES} bytes as JSON; this one takes ${bytes}.`,
    );
  }
  return JSON.parse(json) as PartialResult;
}

/** A stored report split into what a job shows: its progress (without the partial) and its partial result, or null. */
export function splitReport(report: AttemptReport | null | undefined): { progress: JobProgress | null; partial: PartialResult | null } {
  if (!report) return { progress: null, partial: null };
  const { partial, ...progress } = report;
  return { progress, partial: partial ?? null };
}
