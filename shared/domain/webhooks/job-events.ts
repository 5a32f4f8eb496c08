import type { Step } from '../../platform/util/step';
import type { JobEvents } from '../jobs/job-lifecycle';
import type { EmittedEvent } from '../jobs/job-runner';
import type { ChargedJob } from '../jobs/job-settlement';
import type { EventQueue } from './event-queue';
import { eventId, newEvent, type QueuedEvent } from './webhook-event';

/**
 * The job endings' events on an event queue: `job.<outcome>`, whose id is the job's. Each is stored before
 * the ending goes on, unless `awaitStored` is false: the embedded queue holds an event the moment it is
 * called (its sending starts on a later turn), so its ending need not wait and stays one synchronous step.
 */
export function jobEventsOn(queue: EventQueue, { awaitStored = true }: { awaitStored?: boolean } = {}): JobEvents {
  return {
    enabled: queue.enabled,
    record(outcome, jobId): Step<void> {
      const stored = queue.enqueue(newEvent(`job.${outcome}`, jobId));
      if (awaitStored) return stored;
      stored.catch(() => undefined);
      return undefined;
    },
    announce: (job, emitted) => queue.enqueue(declaredEvent(job, emitted)),
  };
}

/**
 * An event a job's processor emitted: data `{job_id, operation, subject, ...what it emitted}`, fixed now. Its id
 * is derived from the job, the type and the event's number within its type in the attempt, so the same event
 * emitted again by a later attempt (the job retried, or run again after a worker died) is the same event:
 * the queue holds it once and a receiver deduplicates by it.
 */
export function declaredEvent(job: Pick<ChargedJob, 'id' | 'operation' | 'subject'>, emitted: EmittedEvent, now = new Date()): QueuedEvent {
  const ref = `${job.id}#${emitted.sequence}`;
  return {
    id: eventId(emitted.type, ref),
    type: emitted.type,
    ref,
    occurred_at: now.toISOString(),
    data: { job_id: job.id, operation: job.operation, subject: job.subject, ...emitted.data },
  };
}
