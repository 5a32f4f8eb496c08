import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import * as z from 'zod';
import type { Operation } from '../../shared/contract/operations/operation';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { JobError } from '../../shared/domain/jobs/job-error';
import { fixedPrice } from '../../shared/domain/jobs/price';
import { paidJob } from '../../shared/domain/jobs/processor';
import { BACKENDS } from '../support/backends';
import { EXTENDED_REGISTRY, withOperations } from '../support/extra-operations';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { acceptedJob } from '../support/job-submission';
import { type Received, WebhookReceiver } from '../support/webhook-receiver';
import { webhookEnv } from '../support/webhook-stands';
import { waitFor } from '../testkit/wait-for';

/*
 * The operations' own events (issue 46, item 3), end to end over HTTP with a real receiver: the template
 * trial's translation emits `translation.chunked` per chunk; two operations of this file show a job retried
 * after emitting (the event is sent once) and a processor emitting data outside its declaration.
 */

/** Emits `flaky.noted` then fails its first attempt (retryable); its second emits again and succeeds. */
const flakyNote = paidOperation({
  job: paidJob({
    operationId: 'flakyNote',
    input: z.strictObject({ note: z.string().min(1).max(50) }),
    example: { note: 'hello' },
    attempts: 2,
    backoffMs: 10,
    events: {
      'flaky.noted': {
        description: 'A note was taken; the attempt that took it first is the one told.',
        data: z.strictObject({ note: z.string().max(50), attempt: z.int().min(1).max(2) }),
      },
    },
    processor:
      () =>
      async ({ note }, { attempt, emit }) => {
        await emit('flaky.noted', { note, attempt });
        if (attempt === 1) throw new JobError('The first attempt always fails.');
        return { note };
      },
  }),
  path: '/v1/flaky-notes',
  summary: 'Take a note, on the second try (1 credit)',
  description: 'Takes a note, failing its first attempt on purpose. Costs 1 credit: ask the person first.',
  price: fixedPrice(1),
  noun: 'note',
});

/** Emits its declared event with data its schema refuses: a programming error. */
const brokenEmit = paidOperation({
  job: paidJob({
    operationId: 'brokenEmit',
    input: z.strictObject({ n: z.int().min(1).max(9) }),
    example: { n: 1 },
    events: { 'broken.sent': { description: 'Never sent: its data is always wrong.', data: z.strictObject({ n: z.int() }) } },
    processor:
      () =>
      async ({ n }, { emit }) => {
        await emit('broken.sent', { n: `${n}` as never });
        return {};
      },
  }),
  path: '/v1/broken-emits',
  summary: 'Emit a broken event (1 credit)',
  description: 'Emits an event outside its declared schema, to show the mistake is caught. Costs 1 credit: ask first.',
  price: fixedPrice(1),
  noun: 'emit',
});

const OPERATIONS: Operation[] = withOperations(EXTENDED_REGISTRY.operations, [flakyNote, brokenEmit]);
/** The types the receiver asks for: not `connection.*`, not `job.failed`. */
const FILTER = 'job.succeeded,translation.chunked,flaky.noted,broken.sent';

const ofType = (type: string, jobId: string) => (payload: any) => payload?.type === type && payload.data?.job_id === jobId;

for (const kind of BACKENDS) {
  describe(`an operation's own webhook events [${kind}]`, function () {
    this.timeout(60_000);
    let receiver: WebhookReceiver;
    let c: ConnectorUnderTest;

    before(async function () {
      this.timeout(60_000);
      receiver = await WebhookReceiver.start();
      c = await startConnector(
        kind,
        webhookEnv(receiver, { TRANSLATE_CHUNK_CHARACTERS: '100', WEBHOOK_EVENT_TYPES: FILTER, JOB_BACKOFF_MS: '10' }),
        { operations: OPERATIONS },
      );
    });
    after(async () => {
      await receiver?.close();
      await c?.close();
    });
    beforeEach(() => {
      receiver.answer = () => 204;
    });

    const translate = async (token: string, text: string, target_language = 'fr') =>
      acceptedJob(c, token, { operationId: 'translateDocument', operations: OPERATIONS, input: { text, target_language } });
    const deliveries = async (type: string, outcome: string) => {
      const text = await (await fetch(c.metricsUrl)).text();
      const line = text.split('\n').find((l) => l.startsWith(`connector_webhook_deliveries_total{type="${type}",outcome="${outcome}"}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };

    it('a translation of 250 characters in chunks of 100 sends translation.chunked three times, signed, once each, with the job, operation and subject in its data', async () => {
      const subject = newSubject();
      const token = await c.link(subject);
      const job = await translate(token, 'x'.repeat(250));
      await receiver.next((p) => p?.type === 'job.succeeded' && p.data.id === job.id, 'job.succeeded');
      const chunked = await waitFor(
        () => {
          const got = receiver.matching(ofType('translation.chunked', job.id));
          return got.length >= 3 ? got : undefined;
        },
        { what: 'three translation.chunked' },
      );
      expect(chunked.map((r) => r.payload.data).sort((a, b) => a.chunk - b.chunk)).to.deep.equal(
        [1, 2, 3].map((chunk) => ({ job_id: job.id, operation: 'translateDocument', subject, chunk, chunks: 3, target_language: 'fr' })),
      );
      for (const r of chunked) {
        expect(Object.keys(r.payload).sort()).to.deep.equal(['data', 'timestamp', 'type']);
        expect(r.id).to.match(/^evt_[A-Za-z0-9_-]{26}$/);
      }
      expect(new Set(chunked.map((r) => r.id)).size).to.equal(3);
      expect(receiver.received.filter((r) => !r.verified)).to.deep.equal([]);
    });

    it('a receiver answering 500 twice to translation.chunked gets it three times with one webhook-id and one body, each signed', async () => {
      receiver.answer = (request, attemptOfId) => (request.payload?.type === 'translation.chunked' && attemptOfId <= 2 ? 500 : 204);
      const token = await c.link(newSubject());
      const job = await translate(token, 'one chunk only');
      const attempts = await waitFor(
        () => {
          const got = receiver.matching(ofType('translation.chunked', job.id));
          return got.length >= 3 ? got : undefined;
        },
        { what: 'the third attempt' },
      );
      expect(new Set(attempts.map((r: Received) => r.id)).size).to.equal(1);
      expect(new Set(attempts.map((r: Received) => r.body)).size).to.equal(1);
      expect(attempts.every((r: Received) => r.verified)).to.equal(true);
    });

    it('a job that emitted its event and was retried sends that event once: the id is the same on both attempts, and the first data stays', async () => {
      const token = await c.link(newSubject());
      const before = await deliveries('flaky.noted', 'delivered');
      const job = await acceptedJob(c, token, { operationId: 'flakyNote', operations: OPERATIONS, input: { note: 'twice' } });
      const done = await pollJob(c, token, job.id, inStatus('succeeded'));
      expect(done.attempts).to.equal(2);
      await receiver.next((p) => p?.type === 'job.succeeded' && p.data.id === job.id, 'job.succeeded');
      const noted = await receiver.next(ofType('flaky.noted', job.id), 'flaky.noted');
      expect(noted.payload.data).to.deep.include({ note: 'twice', attempt: 1, operation: 'flakyNote' });
      expect(receiver.matching(ofType('flaky.noted', job.id))).to.have.length(1);
      await waitFor(async () => (await deliveries('flaky.noted', 'delivered')) === before + 1, { what: 'one delivery counted' });
    });

    it('data outside the declared schema fails the job at once (not retried), logs the mistake naming the operation and type, and sends nothing', async () => {
      const token = await c.link(newSubject());
      const job = await acceptedJob(c, token, { operationId: 'brokenEmit', operations: OPERATIONS, input: { n: 3 } });
      const failed = await pollJob(c, token, job.id, inStatus('failed'));
      expect(failed.attempts).to.equal(1);
      expect(failed.error).to.deep.equal({ message: 'The job could not be completed.' });
      expect(c.logs.text()).to.include('brokenEmit emitted \\"broken.sent\\" with data outside its schema: n:');
      expect(receiver.matching((p) => p?.type === 'broken.sent')).to.deep.equal([]);
      expect(await deliveries('broken.sent', 'delivered')).to.equal(0);
    });

    it('WEBHOOK_EVENT_TYPES sends only the types asked for: no connection.created for a link, no job.failed for a failed translation', async () => {
      const subject = newSubject();
      const token = await c.link(subject);
      const latin = await translate(token, 'salve', 'la');
      await pollJob(c, token, latin.id, inStatus('failed'));
      const later = await translate(token, 'after the failure');
      await receiver.next((p) => p?.type === 'job.succeeded' && p.data.id === later.id, 'the later job.succeeded');
      expect(receiver.matching((p) => p?.data?.subject === subject).map((r) => r.payload.type)).to.not.include.members([
        'connection.created',
        'job.failed',
      ]);
      expect(receiver.matching((p) => p?.type === 'job.failed' || p?.type === 'connection.created')).to.deep.equal([]);
      expect(await deliveries('job.failed', 'delivered')).to.equal(0);
    });

    it('GET /v1/link/event-types lists the connector’s events and the operations’, and each delivered event’s data fits its schema there', async () => {
      expect((await c.call('GET', '/v1/link/event-types')).status).to.equal(401);
      const res = await c.call('GET', '/v1/link/event-types', { headers: { 'x-link-secret': c.config.linkSecret } });
      expect(res.status, res.text).to.equal(200);
      const entries = res.body.event_types as Array<{ type: string; source: string; data_schema: object }>;
      expect(entries.map((e) => e.type)).to.include.members(['job.succeeded', 'connection.created', 'credits.low', 'translation.chunked']);
      expect(entries.find((e) => e.type === 'translation.chunked')?.source).to.equal('translateDocument');
      expect(entries.find((e) => e.type === 'flaky.noted')?.source).to.equal('flakyNote');
      const ajv = new Ajv2020({ strict: false, allErrors: true });
      addFormats(ajv);
      const delivered = receiver.received.filter((r) => r.verified);
      expect(delivered.map((r) => r.payload.type)).to.include.members(['translation.chunked', 'flaky.noted', 'job.succeeded']);
      for (const r of delivered) {
        const entry = entries.find((e) => e.type === r.payload.type);
        const validate = ajv.compile(entry!.data_schema);
        expect(validate(r.payload.data), `${r.payload.type}: ${JSON.stringify(validate.errors)}`).to.equal(true);
      }
    });
  });
}

describe('WEBHOOK_EVENT_TYPES naming a type no part of the connector sends', () => {
  it('refuses the start with the variable and the unknown names, before any port opens', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const started = startConnector('memory', webhookEnv(receiver, { WEBHOOK_EVENT_TYPES: 'job.succeeded,translation.chunkd' }), {
        operations: OPERATIONS,
      });
      const error = await started.then(
        (c) => c.close().then(() => undefined),
        (thrown: unknown) => thrown as Error,
      );
      expect(error?.message).to.equal(
        'invalid configuration: WEBHOOK_EVENT_TYPES names event types the connector does not send: translation.chunkd ' +
          '(GET /v1/link/event-types lists them)',
      );
    } finally {
      await receiver.close();
    }
  });
});
