import { expect } from 'chai';
import type { EventQueue } from '../../../../../shared/domain/webhooks/event-queue';
import { declaredEvent, jobEventsOn } from '../../../../../shared/domain/webhooks/job-events';
import type { QueuedEvent } from '../../../../../shared/domain/webhooks/webhook-event';

/** A queue that records what it is given and answers each enqueue with `stored`. */
function queue(stored: () => Promise<void>, enabled = true) {
  const events: QueuedEvent[] = [];
  const q: EventQueue = {
    enabled,
    enqueue: (event) => {
      events.push(event);
      return stored();
    },
    close: async () => {},
  };
  return { q, events };
}

describe('jobEventsOn (the job endings as events)', () => {
  it('an ending: one job.<outcome> event about the job, and the promise of its storing', async () => {
    const { q, events } = queue(async () => {});
    const step = jobEventsOn(q).record('succeeded', 'job-1');
    expect(step).to.be.instanceOf(Promise);
    await step;
    expect(events.map((event) => [event.type, event.ref])).to.deep.equal([['job.succeeded', 'job-1']]);
  });

  it('a failed storing: the recorded step rejects with that error', async () => {
    const { q } = queue(() => Promise.reject(new Error('full')));
    const outcome = await Promise.resolve(jobEventsOn(q).record('failed', 'job-2')).then(
      () => 'stored',
      (error: Error) => error.message,
    );
    expect(outcome).to.equal('full');
  });

  it('awaitStored false: the event is enqueued, the step is synchronous and a failed storing is swallowed', async () => {
    let rejected: Promise<void> | undefined;
    const { q, events } = queue(() => {
      rejected = Promise.reject(new Error('full'));
      return rejected;
    });
    expect(jobEventsOn(q, { awaitStored: false }).record('canceled', 'job-3')).to.equal(undefined);
    expect(events.map((event) => event.type)).to.deep.equal(['job.canceled']);
    await rejected?.catch(() => undefined);
  });

  it('enabled: follows the queue', () => {
    expect(jobEventsOn(queue(async () => {}, false).q).enabled).to.equal(false);
    expect(jobEventsOn(queue(async () => {}, true).q).enabled).to.equal(true);
  });

  it('an emitted event: its data the job’s id, operation and subject with what was emitted; its id the same for the same job, type and number', async () => {
    const job = { id: 'job_9', operation: 'createReport', subject: 'ann@example.com' };
    const event = declaredEvent(job, { type: 'report.ready', data: { topic: 't' }, sequence: 1 });
    expect(event).to.deep.include({ type: 'report.ready', ref: 'job_9#1' });
    expect(event.data).to.deep.equal({ job_id: 'job_9', operation: 'createReport', subject: 'ann@example.com', topic: 't' });
    expect(declaredEvent(job, { type: 'report.ready', data: { topic: 'other' }, sequence: 1 }).id).to.equal(event.id);
    expect(declaredEvent(job, { type: 'report.ready', data: { topic: 't' }, sequence: 2 }).id).to.not.equal(event.id);
    const { q, events } = queue(async () => {});
    await jobEventsOn(q).announce!(job as never, { type: 'report.ready', data: {}, sequence: 1 });
    expect(events.map((e) => e.id)).to.deep.equal([event.id]);
  });
});
