import { expect } from 'chai';
import type { EventQueue } from '../../../../../shared/domain/webhooks/event-queue';
import { NO_EVENTS } from '../../../../../shared/domain/webhooks/event-queue';
import { filteredEvents } from '../../../../../shared/domain/webhooks/filtered-events';
import { newEvent, type QueuedEvent } from '../../../../../shared/domain/webhooks/webhook-event';

function recording(): { queue: EventQueue; held: QueuedEvent[]; closed: number[] } {
  const held: QueuedEvent[] = [];
  const closed: number[] = [];
  return {
    held,
    closed,
    queue: { enabled: true, enqueue: async (event) => void held.push(event), close: async (graceMs) => void closed.push(graceMs) },
  };
}

describe('filteredEvents (WEBHOOK_EVENT_TYPES)', () => {
  it('records the types asked for and drops the others before the queue sees them', async () => {
    const { queue, held } = recording();
    const filtered = filteredEvents(queue, ['job.succeeded']);
    await filtered.enqueue(newEvent('job.succeeded', 'job_1'));
    await filtered.enqueue(newEvent('connection.created', 'conn_1'));
    expect(held.map((event) => event.type)).to.deep.equal(['job.succeeded']);
  });

  it('a wanted event reaches the queue in the same turn (the embedded queue holds it at once)', () => {
    const { queue, held } = recording();
    void filteredEvents(queue, ['job.failed']).enqueue(newEvent('job.failed', 'job_2'));
    expect(held).to.have.length(1);
  });

  it('no filter, or no receiver, is the queue itself; close reaches the queue', async () => {
    const { queue, closed } = recording();
    expect(filteredEvents(queue, undefined)).to.equal(queue);
    expect(filteredEvents(NO_EVENTS, ['job.failed'])).to.equal(NO_EVENTS);
    await filteredEvents(queue, ['job.failed']).close(5);
    expect(closed).to.deep.equal([5]);
  });
});
