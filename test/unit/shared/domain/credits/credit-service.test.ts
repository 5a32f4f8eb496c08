import { expect } from 'chai';
import { MemoryCreditStore } from '../../../../../shared/adapters/memory/memory-credit-store';
import { CreditService, type CreditSettings } from '../../../../../shared/domain/credits/credit-service';
import { creditEventsOn } from '../../../../../shared/domain/webhooks/credit-events';
import type { EventQueue } from '../../../../../shared/domain/webhooks/event-queue';
import type { QueuedEvent } from '../../../../../shared/domain/webhooks/webhook-event';
import { AppError } from '../../../../../shared/platform/errors/app-error';

/** An event queue that keeps what is recorded, refusing an id it holds already (as both real queues do). */
class RecordedEvents implements EventQueue {
  readonly enabled = true;
  readonly events: QueuedEvent[] = [];
  async enqueue(event: QueuedEvent): Promise<void> {
    if (!this.events.some((held) => held.id === event.id)) this.events.push(event);
  }
  async close(): Promise<void> {}
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (error) {
    expect(error).to.be.instanceOf(AppError);
    return error as AppError;
  }
  throw new Error('expected a refusal');
}

describe('CreditService', () => {
  let events: RecordedEvents;
  let granted: number[];
  const service = (settings: CreditSettings) => {
    events = new RecordedEvents();
    granted = [];
    return new CreditService(new MemoryCreditStore(), creditEventsOn(events), settings, { onGranted: (credits) => granted.push(credits) });
  };

  it('in metered billing a grant is 409 naming BILLING_MODE, after the body is checked; the statement still reads', async () => {
    const credits = service({ mode: 'metered' });
    const refused = await refusal(credits.grant({ subject: 'a@example.com', credits: 5, grant_id: 'g1' }));
    expect(refused.status).to.equal(409);
    expect(refused.message).to.include('BILLING_MODE');
    expect((await refusal(credits.grant({ subject: 'a@example.com', credits: 0, grant_id: 'g1' }))).status).to.equal(400);
    expect((await refusal(credits.grant({ subject: ' \u200b ', credits: 5, grant_id: 'g1' }))).status).to.equal(400);
    expect(await credits.statement('a@example.com', { limit: 10 })).to.deep.equal({
      subject: 'a@example.com',
      balance: 0,
      held: 0,
      entries: [],
      next_cursor: null,
    });
    expect(events.events).to.deep.equal([]);
    expect(credits.prepaid).to.equal(false);
  });

  it('a grant records credits.granted with the balance it left; a replay answers the same grant and records nothing new', async () => {
    const credits = service({ mode: 'prepaid' });
    await credits.grant({ subject: 'b@example.com', credits: 3, grant_id: 'earlier' });
    const first = await credits.grant({ subject: ' b@example.com ', credits: 10, grant_id: 'cs_1', note: 'Starter pack' });
    expect(first.replayed).to.equal(false);
    expect(first.view).to.deep.include({ subject: 'b@example.com', balance: 13, held: 0 });
    expect(first.view.grant).to.deep.include({ kind: 'grant', credits: 10, grant_id: 'cs_1', note: 'Starter pack' });
    const again = await credits.grant({ subject: 'b@example.com', credits: 10, grant_id: 'cs_1', note: 'Starter pack' });
    expect(again).to.deep.equal({ replayed: true, view: first.view });
    expect(events.events.map((event) => [event.type, event.ref, event.data])).to.deep.equal([
      ['credits.granted', events.events[0].ref, { subject: 'b@example.com', grant_id: 'earlier', credits: 3, balance: 3 }],
      ['credits.granted', first.view.grant.id, { subject: 'b@example.com', grant_id: 'cs_1', credits: 10, balance: 13 }],
    ]);
    expect(granted).to.deep.equal([3, 10]);
  });

  it('a replay of a recent grant whose event was lost records it again, under the same id', async () => {
    const credits = service({ mode: 'prepaid' });
    const first = await credits.grant({ subject: 'c@example.com', credits: 4, grant_id: 'cs_lost' });
    const lost = events.events.splice(0);
    expect(lost).to.have.length(1);
    await credits.grant({ subject: 'c@example.com', credits: 4, grant_id: 'cs_lost' });
    expect(events.events.map((event) => [event.id, event.occurred_at])).to.deep.equal([[lost[0].id, first.view.grant.at]]);
  });

  it('the same grant_id with another amount, note or subject is 422 and adds nothing', async () => {
    const credits = service({ mode: 'prepaid' });
    await credits.grant({ subject: 'd@example.com', credits: 4, grant_id: 'cs_2', note: 'x' });
    for (const body of [
      { subject: 'd@example.com', credits: 5, grant_id: 'cs_2', note: 'x' },
      { subject: 'd@example.com', credits: 4, grant_id: 'cs_2' },
      { subject: 'e@example.com', credits: 4, grant_id: 'cs_2', note: 'x' },
    ]) {
      expect((await refusal(credits.grant(body))).status, JSON.stringify(body)).to.equal(422);
    }
    expect(await credits.account('d@example.com')).to.deep.equal({ balance: 4, held: 0 });
    expect(await credits.account('e@example.com')).to.deep.equal({ balance: 0, held: 0 });
    expect(events.events).to.have.length(1);
  });

  it('credits.low is recorded once per fall below CREDITS_LOW_THRESHOLD, by an adjustment or a hold; adjustments are not counted as granted', async () => {
    const credits = service({ mode: 'prepaid', lowThreshold: 10 });
    const subject = 'f@example.com';
    const at = () => new Date().toISOString();
    await credits.grant({ subject, credits: 12, grant_id: 'g-12' });
    await credits.grant({ subject, credits: -1, grant_id: 'adj-1' });
    const first = await credits.hold({ subject, jobId: 'job_1', credits: 2, at: at() });
    await credits.hold({ subject, jobId: 'job_2', credits: 2, at: at() });
    await credits.release({ subject, jobId: 'job_1', ttlSeconds: 60 });
    await credits.release({ subject, jobId: 'job_2', ttlSeconds: 60 });
    await credits.hold({ subject, jobId: 'job_3', credits: 1, at: at() });
    const second = await credits.hold({ subject, jobId: 'job_4', credits: 1, at: at() });
    await credits.grant({ subject, credits: -5, grant_id: 'adj-5' });
    await credits.grant({ subject, credits: 10, grant_id: 'g-10' });
    const third = await credits.grant({ subject, credits: -5, grant_id: 'adj-5b' });
    const lows = events.events.filter((event) => event.type === 'credits.low');
    const entryOf = (result: Awaited<ReturnType<typeof credits.hold>>) => (result.outcome === 'held' ? result.entry?.id : undefined);
    expect(lows.map((event) => [event.ref, event.data])).to.deep.equal([
      [entryOf(first), { subject, balance: 9, threshold: 10 }],
      [entryOf(second), { subject, balance: 9, threshold: 10 }],
      [third.view.grant.id, { subject, balance: 9, threshold: 10 }],
    ]);
    expect(new Set(lows.map((event) => event.id)).size).to.equal(3);
    expect(granted).to.deep.equal([12, 10]);
  });

  it('credits.low is recorded for a void or an expiry that takes the balance below CREDITS_LOW_THRESHOLD, after its own event, and not for one that leaves it below', async () => {
    let now = Date.now();
    events = new RecordedEvents();
    const credits = new CreditService(new MemoryCreditStore(() => now), creditEventsOn(events), { mode: 'prepaid', lowThreshold: 5 });
    const subject = 'v@example.com';
    await credits.grant({ subject, credits: 4, grant_id: 'g-4' });
    await credits.grant({ subject, credits: 3, grant_id: 'g-3', expires_at: new Date(now + 60_000).toISOString() });
    await credits.grant({ subject, credits: 2, grant_id: 'g-2' });
    const voided = await credits.voidGrant({ subject, grant_id: 'g-2', void_id: 'v-2' });
    now += 61_000;
    expect(await credits.expireDue(now)).to.equal(3);
    await credits.voidGrant({ subject, grant_id: 'g-4', void_id: 'v-4' });
    const types = events.events.map((event) => event.type).filter((type) => type !== 'credits.granted');
    expect(types).to.deep.equal(['credits.voided', 'credits.expired', 'credits.low', 'credits.voided']);
    const low = events.events.find((event) => event.type === 'credits.low');
    const expired = events.events.find((event) => event.type === 'credits.expired');
    expect(low?.data).to.deep.equal({ subject, balance: 4, threshold: 5 });
    expect(low?.ref).to.equal(expired?.ref);
    expect(voided.view.void.credits, 'from 9 to 7: not below').to.equal(2);
  });

  it('the statement pages newest first with an opaque cursor, and refuses one it did not issue', async () => {
    const credits = service({ mode: 'prepaid' });
    for (let i = 1; i <= 3; i++) await credits.grant({ subject: 'g@example.com', credits: i, grant_id: `g-${i}` });
    const first = await credits.statement('g@example.com', { limit: 2 });
    expect(first.entries.map((entry) => entry.credits)).to.deep.equal([3, 2]);
    expect(first).to.include({ balance: 6, held: 0 });
    const second = await credits.statement('g@example.com', { limit: 2, cursor: first.next_cursor! });
    expect(second.entries.map((entry) => entry.credits)).to.deep.equal([1]);
    expect(second.next_cursor).to.equal(null);
    expect((await refusal(credits.statement('g@example.com', { limit: 2, cursor: 'bm90LWEtY3Vyc29y' }))).status).to.equal(400);
  });
});
