import type { Step } from '../../platform/util/step';
import type { JobEvents } from '../jobs/job-lifecycle';
import type { EventQueue } from './event-queue';
import { newEvent } from './webhook-event';

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
  };
}
