import type { ConnectionStore } from '../connections/connection-store';
import { toConnectionView } from '../connections/connection-view';
import { isTerminal, type Job, toPublicJob } from '../jobs/job';
import type { JobQueue } from '../jobs/job-queue';
import type { QueuedEvent } from './webhook-event';

/** Where an event's job or connection is read from when it is sent. */
export interface EventSources {
  readonly jobs: Pick<JobQueue, 'get'>;
  readonly connections: Pick<ConnectionStore, 'get'>;
  /** How a job event shows its job (the operation's event view); default: the job as stored. */
  readonly jobView?: (job: Job) => Job;
}

/**
 * Whether what an event announces is true: `true` with the body's `data`, `pending` while it may still
 * become true, `never` when it will not (nothing is then sent).
 */
export type Fact = { kind: 'true'; data: object } | { kind: 'pending' } | { kind: 'never' };

/**
 * A connection event is recorded just before the connection is created or revoked; if that step fails (the
 * request answers 503 and the dashboard tries again, making a new connection), the event waits this long
 * for it and is then dropped.
 */
export const CONNECTION_FACT_WAIT_MS = 5 * 60_000;

/**
 * Checks an event against the stores. Events are recorded *before* the step that makes them true, so that
 * a process dying between the two can never lose one; the delivery therefore sends only what is true:
 * - a job event once the job has finished with that very outcome (a worker that recorded `job.succeeded`
 *   and died before marking the job completed leaves the job to run again; should it then fail, the
 *   `job.failed` event is the one sent). The data is the job as its operation's event view shows it (by
 *   default as `GET /v1/jobs/{id}` shows it), plus `subject`.
 * - a connection event once the connection exists (created) or is revoked; the data is the connection as
 *   the dashboard's list shows it.
 * - a credits event at once: it is recorded after the step that moved the balance, with the data that step
 *   fixed (credit-events.ts).
 * - an operation's own event at once: it is recorded when its processor emitted it, with that data
 *   (job-events.ts); the job's ending does not take it back.
 */
export async function establish(event: QueuedEvent, sources: EventSources, now = Date.now()): Promise<Fact> {
  if (event.type === 'job.succeeded' || event.type === 'job.failed' || event.type === 'job.canceled') return jobFact(event, sources);
  if (event.type === 'connection.created' || event.type === 'connection.revoked') return connectionFact(event, sources.connections, now);
  // The credits events and the operations' own: recorded with the data their step fixed.
  return event.data ? { kind: 'true', data: event.data } : { kind: 'never' };
}

async function jobFact(event: QueuedEvent, sources: EventSources): Promise<Fact> {
  const job = await sources.jobs.get(event.ref);
  // A job is kept for the idempotency retention, far longer than any delivery waits for it.
  if (!job) return { kind: 'never' };
  if (!isTerminal(job.status)) return { kind: 'pending' };
  if (`job.${job.status}` !== event.type) return { kind: 'never' };
  const shown = sources.jobView ? sources.jobView(toPublicJob(job)) : toPublicJob(job);
  return { kind: 'true', data: { ...shown, subject: job.subject } };
}

async function connectionFact(event: QueuedEvent, connections: EventSources['connections'], now: number): Promise<Fact> {
  const connection = await connections.get(event.ref);
  const done = event.type === 'connection.created' ? connection !== undefined : connection?.revoked === true;
  if (done) return { kind: 'true', data: toConnectionView(connection!) };
  // A revoked event is recorded only for a live connection: one that has since vanished has expired.
  if (event.type === 'connection.revoked' && !connection) return { kind: 'never' };
  return now - Date.parse(event.occurred_at) < CONNECTION_FACT_WAIT_MS ? { kind: 'pending' } : { kind: 'never' };
}

/**
 * How long to wait before looking again at a pending event: a quarter of its age, between 200 ms and 30 s.
 * The first looks come soon (the step that makes it true normally follows within milliseconds); a job
 * that is running again after a crash is looked at every half minute.
 */
export function recheckDelay(event: QueuedEvent, now = Date.now()): number {
  const age = Math.max(0, now - Date.parse(event.occurred_at));
  return Math.min(Math.max(Math.round(age / 4), 200), 30_000);
}
