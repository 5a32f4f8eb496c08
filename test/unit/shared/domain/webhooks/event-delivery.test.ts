import { expect } from 'chai';
import type { Logger } from 'pino';
import { EventDelivery } from '../../../../../shared/domain/webhooks/event-delivery';
import type { EventSources } from '../../../../../shared/domain/webhooks/event-facts';
import type { QueuedEvent } from '../../../../../shared/domain/webhooks/webhook-event';
import type { SendResult, WebhookSender } from '../../../../../shared/domain/webhooks/webhook-sender';
import type { Metrics } from '../../../../../shared/platform/metrics/metrics';

const GRANTED: QueuedEvent = {
  id: 'evt-1',
  type: 'credits.granted',
  ref: 'entry-1',
  occurred_at: '2026-03-02T12:00:00.000Z',
  data: { balance: 5 },
};
const BODY = JSON.stringify({ type: 'credits.granted', timestamp: GRANTED.occurred_at, data: { balance: 5 } });

/** A delivery whose sender answers `result`; records the sends, the counted outcomes and the log levels. */
function delivery(result: SendResult, connection?: { revoked: boolean }) {
  const sent: Array<[string, string]> = [];
  const outcomes: string[] = [];
  const levels: string[] = [];
  const sender = {
    send: async (id: string, body: string) => {
      sent.push([id, body]);
      return result;
    },
  } as unknown as WebhookSender;
  const metrics = { webhookDeliveries: { inc: ({ outcome }: { outcome: string }) => outcomes.push(outcome) } } as unknown as Metrics;
  const record = (level: string) => (fields: Record<string, unknown>) => {
    expect(JSON.stringify(fields)).to.not.contain('balance');
    levels.push(level);
  };
  const logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') } as unknown as Logger;
  const sources = { jobs: { get: async () => undefined }, connections: { get: async () => connection } } as unknown as EventSources;
  return { target: new EventDelivery(sources, sender, metrics, logger), sent, outcomes, levels };
}

describe('EventDelivery.attempt', () => {
  it('a true event, delivered: the body built from it, sent under the event id, counted delivered', async () => {
    const { target, sent, outcomes, levels } = delivery({ outcome: 'delivered', status: 204 });
    expect(await target.attempt(GRANTED, undefined, 1, false)).to.deep.equal({ kind: 'delivered', body: BODY });
    expect(sent).to.deep.equal([['evt-1', BODY]]);
    expect([outcomes, levels]).to.deep.equal([['delivered'], ['debug']]);
  });

  it('a retry: the body of the earlier attempt is sent again as it was, not rebuilt', async () => {
    const { target, sent } = delivery({ outcome: 'delivered', status: 200 });
    await target.attempt(GRANTED, '{"kept":true}', 2, false);
    expect(sent).to.deep.equal([['evt-1', '{"kept":true}']]);
  });

  it('a failure: failed while attempts remain (info), abandoned on the last (error); the body kept for the retry', async () => {
    const failing = { outcome: 'failed', reason: 'no answer' } as const;
    const first = delivery(failing);
    expect(await first.target.attempt(GRANTED, undefined, 1, false)).to.deep.equal({ kind: 'failed', body: BODY });
    const last = delivery(failing);
    await last.target.attempt(GRANTED, BODY, 8, true);
    expect([first.outcomes, first.levels, last.outcomes, last.levels]).to.deep.equal([['failed'], ['info'], ['abandoned'], ['error']]);
  });

  it('410 Gone: done, counted gone and warned once', async () => {
    const { target, outcomes, levels } = delivery({ outcome: 'gone', status: 410 });
    expect((await target.attempt(GRANTED, undefined, 1, false)).kind).to.equal('gone');
    expect([outcomes, levels]).to.deep.equal([['gone'], ['warn']]);
  });

  it('an event that will never be true: skipped, nothing sent', async () => {
    const { target, sent, outcomes } = delivery({ outcome: 'delivered', status: 200 });
    const noData: QueuedEvent = { ...GRANTED, data: undefined };
    expect(await target.attempt(noData, undefined, 1, false)).to.deep.equal({ kind: 'skipped' });
    expect([sent, outcomes]).to.deep.equal([[], ['skipped']]);
  });

  it('an event not true yet: wait, nothing sent and nothing counted, so no attempt is spent', async () => {
    const { target, sent, outcomes } = delivery({ outcome: 'delivered', status: 200 }, undefined);
    const created: QueuedEvent = { id: 'evt-2', type: 'connection.created', ref: 'conn-1', occurred_at: new Date().toISOString() };
    const step = await target.attempt(created, undefined, 1, false);
    expect(step.kind).to.equal('wait');
    expect([sent, outcomes]).to.deep.equal([[], []]);
  });
});
