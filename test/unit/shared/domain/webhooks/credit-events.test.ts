import { expect } from 'chai';
import type { CreditEntry } from '../../../../../shared/domain/credits/credit-store';
import { creditEventsOn, creditsGrantedEvent, creditsLowEvent } from '../../../../../shared/domain/webhooks/credit-events';
import type { EventQueue } from '../../../../../shared/domain/webhooks/event-queue';
import { eventId, type QueuedEvent } from '../../../../../shared/domain/webhooks/webhook-event';

const AT = new Date('2026-11-29T02:00:00.000Z');
const GRANT: CreditEntry = {
  id: 'cre_grant',
  kind: 'grant',
  credits: 500,
  at: AT.toISOString(),
  grant_id: 'cs_1',
  balance_after: 500,
  held_after: 0,
};

/** A queue that keeps what it is given. */
function recordingQueue(): EventQueue & { events: QueuedEvent[] } {
  const events: QueuedEvent[] = [];
  return { enabled: true, events, enqueue: async (event) => void events.push(event), close: async () => {} };
}

describe('credit events (credit-events.ts)', () => {
  it('credits.low carries the subject, the balance left and the threshold, under an id derived from the entry that crossed', () => {
    const event = creditsLowEvent({ subject: 'p', entryId: 'cre_hold', balance: 40, threshold: 50 }, AT);
    expect(event).to.deep.equal({
      id: eventId('credits.low', 'cre_hold'),
      type: 'credits.low',
      ref: 'cre_hold',
      occurred_at: AT.toISOString(),
      data: { subject: 'p', balance: 40, threshold: 50 },
    });
    expect(JSON.stringify(event.data), 'the data in its published order').to.equal('{"subject":"p","balance":40,"threshold":50}');
  });

  it('credits.granted carries the grant id and the balance the grant left; recorded twice it has one id', () => {
    const event = creditsGrantedEvent('p', GRANT, 700, AT);
    expect(event.data).to.deep.equal({ subject: 'p', grant_id: 'cs_1', credits: 500, balance: 700 });
    expect(event.id).to.equal(creditsGrantedEvent('p', GRANT, 1, new Date()).id);
    expect(creditsGrantedEvent('p', { ...GRANT, grant_id: undefined }, 700, AT).data).to.have.property('grant_id', null);
  });

  it('the credit events on a queue record each event on it, a fall below the threshold as credits.low', async () => {
    const queue = recordingQueue();
    const events = creditEventsOn(queue);
    await events.granted('p', GRANT, 700, AT);
    await events.fellLow('p', 'cre_hold', 40, 50);
    expect(queue.events.map((event) => [event.type, event.ref, event.data])).to.deep.equal([
      ['credits.granted', 'cre_grant', { subject: 'p', grant_id: 'cs_1', credits: 500, balance: 700 }],
      ['credits.low', 'cre_hold', { subject: 'p', balance: 40, threshold: 50 }],
    ]);
  });
});
