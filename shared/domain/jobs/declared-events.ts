import * as z from 'zod';

/**
 * One event type a paid job declares it may emit while it runs: what it means (for the catalogue) and the
 * schema of its data, declared once with zod, so that the processor's `emit` is typed by it and each call is
 * checked against it.
 */
export interface DeclaredEvent<Data extends z.ZodObject = z.ZodObject> {
  /** When it is sent, in one sentence for the catalogue (docs/webhooks.md, `GET /v1/link/event-types`). */
  readonly description: string;
  /** The schema of what the processor emits; the body's `data` adds the job's id, operation and subject. */
  readonly data: Data;
}

/** A job's declared events, by type name (`report.ready`). */
export type DeclaredEvents = Readonly<Record<string, DeclaredEvent>>;

/** What `emit(type, data)` takes for type `K` of the events `E`: the input of its data schema. */
export type EventData<E extends DeclaredEvents, K extends keyof E> = z.input<E[K]['data']>;

/** The fields every declared event's data carries besides its own: a declared schema may not use them. */
export const JOB_EVENT_FIELDS = ['job_id', 'operation', 'subject'] as const;

/** A declared type name: lower-case dotted words (`report.ready`), at most this long. */
export const MAX_EVENT_TYPE_LENGTH = 64;
const TYPE_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;
/** The prefixes of the connector's own events: a declared type may not take one. */
export const BUILT_IN_PREFIXES = ['job.', 'connection.', 'credits.'] as const;

/** The largest data one emitted event may carry, as JSON: events are small notices, not results. */
export const MAX_EVENT_DATA_BYTES = 16 * 1024;
/** The most events one attempt may emit: a processor emitting in a loop without end fails instead of flooding the receiver. */
export const MAX_EVENTS_PER_ATTEMPT = 1000;

/**
 * A processor emitted an event its job does not declare, or data its schema refuses, or too much: a mistake in
 * the code, not a failure of the work. The job fails (it is not retried: running again makes the same
 * mistake), the person sees the generic message, and the worker logs this one, which names the operation and type.
 */
export class EventDeclarationError extends TypeError {
  constructor(message: string) {
    super(message);
    this.name = 'EventDeclarationError';
  }
}

/** What is wrong with one job's declared events (names, reserved fields, descriptions); undefined when nothing. */
export function declaredEventsProblem(events: DeclaredEvents | undefined): string | undefined {
  for (const [type, declared] of Object.entries(events ?? {})) {
    const problem = typeProblem(type) ?? dataProblem(type, declared);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

function typeProblem(type: string): string | undefined {
  if (!TYPE_NAME.test(type) || type.length > MAX_EVENT_TYPE_LENGTH) {
    return `the event type "${type}" is not lower-case dotted words (report.ready) of at most ${MAX_EVENT_TYPE_LENGTH} characters`;
  }
  if (BUILT_IN_PREFIXES.some((prefix) => type.startsWith(prefix))) {
    return `the event type "${type}" takes a prefix of the connector's own events (${BUILT_IN_PREFIXES.join(', ')})`;
  }
  return undefined;
}

function dataProblem(type: string, declared: DeclaredEvent): string | undefined {
  if (!(declared?.data instanceof z.ZodObject)) return `the event type "${type}" declares data that is not a zod object`;
  const reserved = JOB_EVENT_FIELDS.filter((field) => field in declared.data.shape);
  if (reserved.length > 0) return `the event type "${type}" declares ${reserved.join(', ')}, which every event's data carries already`;
  if (!declared.description || declared.description.length > 300)
    return `the event type "${type}" needs a description of 1 to 300 characters`;
  return undefined;
}

/** One emission made valid: the data as its schema read it, ready to be recorded. */
export interface Emission {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/**
 * Checks one `emit` of the job of `operation` against its declarations; throws an {@link EventDeclarationError}
 * naming the operation, the type and what is wrong (paths and rules only: the data may hold a person's text).
 */
export function checkEmission(operation: string, events: DeclaredEvents | undefined, type: string, data: unknown): Emission {
  const declared = events?.[type];
  if (!declared || !Object.hasOwn(events!, type)) {
    const known = Object.keys(events ?? {});
    throw new EventDeclarationError(
      `${operation} emitted the event type "${type}", which its job does not declare (${known.length ? known.join(', ') : 'it declares none'})`,
    );
  }
  const parsed = declared.data.safeParse(data);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`).join('; ');
    throw new EventDeclarationError(`${operation} emitted "${type}" with data outside its schema: ${issues}`);
  }
  const size = Buffer.byteLength(JSON.stringify(parsed.data));
  if (size > MAX_EVENT_DATA_BYTES) {
    throw new EventDeclarationError(`${operation} emitted "${type}" with ${size} bytes of data (at most ${MAX_EVENT_DATA_BYTES})`);
  }
  return { type, data: parsed.data as Record<string, unknown> };
}
