import * as z from 'zod';
import { ConfigError } from '../../platform/config/config-error';
import type { WebhookSettings } from '../../platform/config/webhook-settings';
import type { DeclaredEvents } from '../jobs/declared-events';
import type { PaidJob } from '../jobs/processor';
import { EVENT_TYPES, type EventType } from './webhook-event';

/** One event type as the catalogue lists it: its name, who sends it, when, and the JSON Schema of its `data`. */
export interface EventTypeEntry {
  readonly type: string;
  /** `connector` for the connector's own events, else the operationId whose processor emits it. */
  readonly source: string;
  readonly description: string;
  /** The JSON Schema (draft 2020-12) of the body's `data`. */
  readonly data_schema: Readonly<Record<string, unknown>>;
}

const iso = z.iso.datetime();
const nullableIso = iso.nullable();

/** A job event's data: the job as `GET /v1/jobs/{id}` (or its operation's event view) shows it, plus `subject`. */
const JOB_DATA = z.looseObject({
  id: z.string(),
  operation: z.string(),
  status: z.enum(['succeeded', 'failed', 'canceled']),
  input: z.record(z.string(), z.unknown()),
  cost: z.int().min(0),
  created_at: iso,
  started_at: nullableIso,
  finished_at: nullableIso,
  result: z.record(z.string(), z.unknown()).nullable(),
  error: z.object({ message: z.string() }).nullable(),
  attempts: z.int().min(0),
  cancel_requested_at: nullableIso,
  refunded_credits: z.int().min(0),
  subject: z.string(),
});

/** A connection event's data: the connection as the dashboard's list shows it. */
const CONNECTION_DATA = z.strictObject({
  connection_id: z.string(),
  subject: z.string(),
  kind: z.enum(['link', 'oauth']),
  client: z.strictObject({ client_id: z.string(), client_name: z.string().nullable() }).nullable(),
  created_at: iso,
  last_used_at: nullableIso,
  expires_at: iso,
  revoked: z.boolean(),
});

/** `credits.granted`, `credits.expired`, `credits.voided`: the entry's grant, its credits and the balance it left. */
const GRANT_DATA = z.strictObject({ subject: z.string(), grant_id: z.string().nullable(), credits: z.int(), balance: z.int() });

/** The connector's own events: when each is sent (docs/webhooks.md, "The events") and its data. */
const BUILT_IN: Readonly<Record<EventType, { description: string; data: z.ZodType }>> = {
  'job.succeeded': { description: 'A paid job finished successfully.', data: JOB_DATA },
  'job.failed': {
    description: 'A paid job finished failed; its cost is refunded unless its operation keeps failed charges.',
    data: JOB_DATA,
  },
  'job.canceled': { description: 'A paid job ended canceled by its owner, queued or running.', data: JOB_DATA },
  'connection.created': { description: 'A connection was made by a link or an approved app.', data: CONNECTION_DATA },
  'connection.revoked': { description: 'A connection was revoked.', data: CONNECTION_DATA },
  'credits.granted': { description: 'Prepaid billing: a grant or an adjustment was added.', data: GRANT_DATA },
  'credits.low': {
    description: "Prepaid billing: a step took a subject's balance below CREDITS_LOW_THRESHOLD.",
    data: z.strictObject({ subject: z.string(), balance: z.int(), threshold: z.int() }),
  },
  'credits.expired': { description: 'Prepaid billing: the unspent rest of a grant expired.', data: GRANT_DATA },
  'credits.voided': { description: 'Prepaid billing: the unspent rest of a grant was voided.', data: GRANT_DATA },
};

function jsonSchema(schema: z.ZodType): Readonly<Record<string, unknown>> {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' });
  return rest;
}

/** A declared event's data as it is sent: its own fields and the job's id, operation and subject. */
function declaredData(data: z.ZodObject): z.ZodObject {
  return data.extend({ job_id: z.string(), operation: z.string(), subject: z.string() });
}

/** The operations' own events, in the order their jobs are given. */
function declaredEntries(jobs: readonly PaidJob[]): EventTypeEntry[] {
  return jobs.flatMap((job) =>
    Object.entries((job.events ?? {}) as DeclaredEvents).map(([type, declared]) => ({
      type,
      source: job.operationId,
      description: declared.description,
      data_schema: jsonSchema(declaredData(declared.data)),
    })),
  );
}

/**
 * Every event type a connector running `jobs` can send: the connector's own, then the ones the jobs declare,
 * each with the JSON Schema of its `data`. What `GET /v1/link/event-types` answers and docs/webhooks.md lists.
 * Throws when two jobs declare one type: its schema would be ambiguous.
 */
export function eventCatalogue(jobs: readonly PaidJob[]): EventTypeEntry[] {
  const builtIn = EVENT_TYPES.map((type) => ({
    type,
    source: 'connector',
    description: BUILT_IN[type].description,
    data_schema: jsonSchema(BUILT_IN[type].data),
  }));
  const declared = declaredEntries(jobs);
  const seen = new Map<string, string>();
  for (const entry of declared) {
    const first = seen.get(entry.type);
    if (first !== undefined) throw new Error(`the event type "${entry.type}" is declared by both ${first} and ${entry.source}`);
    seen.set(entry.type, entry.source);
  }
  return [...builtIn, ...declared];
}

/** The names of `types` that no entry of `catalogue` has, in the order given. */
export function unknownEventTypes(types: readonly string[], catalogue: readonly EventTypeEntry[]): string[] {
  const known = new Set(catalogue.map((entry) => entry.type));
  return types.filter((type) => !known.has(type));
}

/**
 * Refuses a `WEBHOOK_EVENT_TYPES` that names a type no part of this connector sends (a typo would otherwise
 * silence that event for good): a {@link ConfigError} naming the variable and the unknown names, thrown when a
 * process starts, like any other refused setting.
 */
export function assertKnownEventTypes(webhooks: Pick<WebhookSettings, 'eventTypes'> | undefined, jobs: readonly PaidJob[]): void {
  const unknown = unknownEventTypes(webhooks?.eventTypes ?? [], eventCatalogue(jobs));
  if (unknown.length === 0) return;
  throw new ConfigError([
    {
      name: 'WEBHOOK_EVENT_TYPES',
      reason: `names event types the connector does not send: ${unknown.join(', ')} (GET /v1/link/event-types lists them)`,
    },
  ]);
}
