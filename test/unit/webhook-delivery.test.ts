import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { Webhook } from 'standardwebhooks';
import type { JobRecord } from '../../shared/domain/jobs/job';
import { MemoryEventQueue } from '../../shared/adapters/memory/memory-event-queue';
import { Metrics } from '../../shared/platform/metrics/metrics';
import type { Connection } from '../../shared/domain/connections/connection-store';
import type { DeliveryStep, EventDelivery } from '../../shared/domain/webhooks/event-delivery';
import { CONNECTION_FACT_WAIT_MS, establish, recheckDelay } from '../../shared/domain/webhooks/event-facts';
import { MAX_RETRY_DELAY_MS, RETRY_WINDOW_MS, retryAttempts, retryDelay } from '../../shared/domain/webhooks/retry-schedule';
import { eventId, newEvent, type QueuedEvent } from '../../shared/domain/webhooks/webhook-event';
import { WebhookSender } from '../../shared/domain/webhooks/webhook-sender';
import { newWebhookSecret } from '../support/webhook-receiver';
import { waitFor } from '../../testkit/wait-for';

describe('webhook delivery logic', () => {
  describe('the retry schedule', () => {
    it('doubles from the base, is capped at an hour, and makes enough attempts to span 24 hours', () => {
      expect([1, 2, 3, 4].map((n) => retryDelay(5000, n))).to.deep.equal([5000, 10_000, 20_000, 40_000]);
      expect(retryDelay(5000, 30)).to.equal(MAX_RETRY_DELAY_MS);
      for (const base of [10, 50, 5000, 600_000]) {
        const attempts = retryAttempts(base);
        const waits = Array.from({ length: attempts - 1 }, (_, i) => retryDelay(base, i + 1));
        const total = waits.reduce((a, b) => a + b, 0);
        expect(total, `base ${base}`).to.be.at.least(RETRY_WINDOW_MS);
        expect(total - waits[waits.length - 1], `base ${base}: one attempt fewer would not span 24 h`).to.be.below(RETRY_WINDOW_MS);
      }
      expect(retryAttempts(5000)).to.equal(34);
    });
  });

  describe('event ids', () => {
    it('are derived from the type and the job or connection id: the same event twice has one id, another has another', () => {
      expect(eventId('job.succeeded', 'job_a')).to.equal(newEvent('job.succeeded', 'job_a').id);
      expect(eventId('job.succeeded', 'job_a')).to.match(/^evt_[A-Za-z0-9_-]{26}$/);
      expect(eventId('job.failed', 'job_a')).to.not.equal(eventId('job.succeeded', 'job_a'));
      expect(eventId('job.succeeded', 'job_b')).to.not.equal(eventId('job.succeeded', 'job_a'));
    });
  });

  describe('establishing what an event announces', () => {
    const job = (status: JobRecord['status']): JobRecord => ({
      id: 'job_1',
      subject: 's@example.com',
      operation: 'createJob',
      status,
      input: { prompt: 'p' },
      cost: 1,
      created_at: '2026-01-01T00:00:00.000Z',
      started_at: null,
      finished_at: null,
      result: null,
      error: null,
      attempts: 1,
      progress: null,
      cancel_requested_at: null,
      refunded_credits: 0,
    });
    const connection: Connection = {
      id: 'conn_1',
      subject: 's@example.com',
      issuedAt: 1_700_000_000,
      expiresAt: 1_800_000_000,
      revoked: false,
    };
    const sources = (j?: JobRecord, c?: Connection) => ({ jobs: { get: async () => j }, connections: { get: async () => c } });

    it('a job event is pending while the job runs, true once it ended with that outcome, never if it ended otherwise or is gone', async () => {
      const succeeded = newEvent('job.succeeded', 'job_1');
      expect(await establish(succeeded, sources(job('running')))).to.deep.equal({ kind: 'pending' });
      expect(await establish(succeeded, sources(job('queued')))).to.deep.equal({ kind: 'pending' });
      const { subject, ...shown } = job('succeeded');
      expect(await establish(succeeded, sources(job('succeeded')))).to.deep.equal({ kind: 'true', data: { ...shown, subject } });
      expect(await establish(succeeded, sources(job('failed')))).to.deep.equal({ kind: 'never' });
      expect(await establish(succeeded, sources())).to.deep.equal({ kind: 'never' });
    });

    it('a connection event waits a few minutes for its write, then gives up; a revoked event for a vanished connection never comes true', async () => {
      const now = Date.now();
      const created = newEvent('connection.created', 'conn_1', new Date(now));
      expect(await establish(created, sources(undefined, connection), now)).to.deep.include({ kind: 'true' });
      expect(await establish(created, sources(), now + 1000)).to.deep.equal({ kind: 'pending' });
      expect(await establish(created, sources(), now + CONNECTION_FACT_WAIT_MS)).to.deep.equal({ kind: 'never' });
      const revoked = newEvent('connection.revoked', 'conn_1', new Date(now));
      expect(await establish(revoked, sources(undefined, connection), now + 1000)).to.deep.equal({ kind: 'pending' });
      const fact = await establish(revoked, sources(undefined, { ...connection, revoked: true }), now);
      expect(fact).to.deep.equal({
        kind: 'true',
        data: {
          connection_id: 'conn_1',
          subject: 's@example.com',
          kind: 'link',
          client: null,
          created_at: new Date(1_700_000_000_000).toISOString(),
          last_used_at: null,
          expires_at: new Date(1_800_000_000_000).toISOString(),
          revoked: true,
        },
      });
      expect(await establish(revoked, sources(), now)).to.deep.equal({ kind: 'never' });
    });

    it('a pending event is looked at again after a quarter of its age, between 200 ms and 30 s', () => {
      const now = Date.now();
      const at = (ageMs: number) => recheckDelay(newEvent('job.succeeded', 'job_1', new Date(now - ageMs)), now);
      expect([at(0), at(4000), at(3_600_000)]).to.deep.equal([200, 1000, 30_000]);
    });
  });

  describe('the in-process event queue', () => {
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

  describe('the sender', () => {
    let server: http.Server;
    let answer: (req: http.IncomingMessage, res: http.ServerResponse) => void;
    const seen: Array<{ headers: http.IncomingHttpHeaders; body: string; url: string }> = [];
    const secret = newWebhookSecret();
    let url: string;

    before(async () => {
      server = http.createServer((req, res) => {
        let body = '';
        req.on('data', (chunk) => (body += chunk));
        req.on('end', () => {
          seen.push({ headers: req.headers, body, url: req.url ?? '' });
          answer(req, res);
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    });
    after(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    beforeEach(() => (seen.length = 0));

    const sender = (overrides: { allowPrivate?: boolean; timeoutMs?: number } = {}) =>
      new WebhookSender({ url, secret, allowPrivate: overrides.allowPrivate ?? true, concurrency: 2 }, overrides.timeoutMs);

    it('posts the body signed per Standard Webhooks; a 2xx is delivered', async () => {
      answer = (_req, res) => res.writeHead(204).end();
      const s = sender();
      const result = await s.send('evt_1', '{"type":"job.succeeded"}');
      s.close();
      expect(result).to.deep.equal({ outcome: 'delivered', status: 204 });
      const { headers, body } = seen[0];
      expect(headers['content-type']).to.equal('application/json');
      expect(headers['webhook-id']).to.equal('evt_1');
      expect(new Webhook(secret).verify(body, headers as Record<string, string>)).to.deep.equal({ type: 'job.succeeded' });
    });

    it('a 410 is gone, a 500 and a redirect are failures (the redirect is not followed)', async () => {
      const s = sender();
      answer = (_req, res) => res.writeHead(410).end();
      expect(await s.send('evt_2', '{}')).to.deep.equal({ outcome: 'gone', status: 410 });
      answer = (_req, res) => res.writeHead(500).end('boom');
      expect(await s.send('evt_2', '{}')).to.deep.include({ outcome: 'failed', status: 500 });
      answer = (req, res) => (req.url === '/hook' ? res.writeHead(302, { location: '/elsewhere' }).end() : res.writeHead(200).end());
      expect(await s.send('evt_2', '{}')).to.deep.include({ outcome: 'failed', status: 302 });
      s.close();
      expect(seen.map((r) => r.url)).to.deep.equal(['/hook', '/hook', '/hook']);
    });

    it('a receiver that does not answer within the timeout is a failure', async () => {
      answer = () => {};
      const s = sender({ timeoutMs: 200 });
      const started = Date.now();
      expect(await s.send('evt_3', '{}')).to.deep.equal({ outcome: 'failed', reason: 'no answer within 200 ms' });
      expect(Date.now() - started).to.be.below(2000);
      s.close();
    });

    it('without WEBHOOK_ALLOW_PRIVATE a loopback receiver is never contacted', async () => {
      answer = (_req, res) => res.writeHead(204).end();
      const s = sender({ allowPrivate: false });
      const result = await s.send('evt_4', '{}');
      s.close();
      expect(result).to.deep.include({ outcome: 'failed' });
      expect(seen).to.deep.equal([]);
    });
  });
});
