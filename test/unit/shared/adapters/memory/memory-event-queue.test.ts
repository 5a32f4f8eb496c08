import { expect } from 'chai';
import pino from 'pino';
import { MemoryEventQueue } from '../../../../../shared/adapters/memory/memory-event-queue';
import type { DeliveryStep, EventDelivery } from '../../../../../shared/domain/webhooks/event-delivery';
import { newEvent, type QueuedEvent } from '../../../../../shared/domain/webhooks/webhook-event';
import { Metrics } from '../../../../../shared/platform/metrics/metrics';
import { waitFor } from '../../../../testkit/wait-for';

describe('the in-process webhook event queue', () => {
  const logger = pino({ level: 'silent' });
  let queue: MemoryEventQueue | undefined;
  afterEach(async () => queue?.close(0));

  /** A delivery that answers the scripted steps in turn and records each call. */
  function scripted(steps: DeliveryStep[]) {
    const calls: Array<{ id: string; body: string | undefined; attempt: number; last: boolean }> = [];
    const delivery = {
      attempt: async (event: QueuedEvent, body: string | undefined, attempt: number, last: boolean) => {
        calls.push({ id: event.id, body, attempt, last });
        return steps.shift() ?? { kind: 'delivered', body: 'B' };
      },
      close: () => {},
    } as unknown as EventDelivery;
    queue = new MemoryEventQueue({ delivery, retryBaseMs: 10, concurrency: 2, metrics: new Metrics({ defaultMetrics: false }), logger });
    return calls;
  }

  it('retries a failed attempt on the schedule with the body the first attempt sent, until one is delivered', async () => {
    const calls = scripted([
      { kind: 'failed', body: 'B' },
      { kind: 'failed', body: 'B' },
      { kind: 'failed', body: 'B' },
    ]);
    await queue!.enqueue(newEvent('connection.created', 'conn_r'));
    await waitFor(() => calls.length === 4 && queue!.size === 0, { what: 'four attempts' });
    expect(calls.map((c) => [c.attempt, c.body, c.last])).to.deep.equal([
      [1, undefined, false],
      [2, 'B', false],
      [3, 'B', false],
      [4, 'B', false],
    ]);
  });

  it('stops at a 410 Gone: one attempt and nothing left waiting', async () => {
    const calls = scripted([{ kind: 'gone', body: 'B' }]);
    await queue!.enqueue(newEvent('connection.created', 'conn_g'));
    await waitFor(() => calls.length === 1, { what: 'the attempt' });
    await waitFor(() => queue!.size === 0, { what: 'the event to be done' });
    expect(calls).to.have.length(1);
  });

  it('looks again at an event that is not true yet without spending an attempt', async () => {
    const calls = scripted([
      { kind: 'wait', delayMs: 5 },
      { kind: 'wait', delayMs: 5 },
    ]);
    await queue!.enqueue(newEvent('job.succeeded', 'job_w'));
    await waitFor(() => calls.length === 3 && queue!.size === 0, { what: 'three looks' });
    expect(calls.map((c) => c.attempt)).to.deep.equal([1, 1, 1]);
  });

  it('holds one event once: recording it again, before or after its delivery, sends nothing more', async () => {
    const calls = scripted([]);
    const event = newEvent('connection.revoked', 'conn_d');
    await Promise.all([queue!.enqueue(event), queue!.enqueue({ ...event })]);
    await waitFor(() => calls.length === 1 && queue!.size === 0, { what: 'the delivery' });
    await queue!.enqueue(event);
    expect(queue!.size).to.equal(0);
    expect(calls).to.have.length(1);
  });
});
