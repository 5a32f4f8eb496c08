import { expect } from 'chai';
import { WebhookVerificationError } from 'standardwebhooks';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newSubject } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { acceptedJob } from '../support/job-submission';
import { codeFor, codeForm, tokenRequest } from '../support/oauth-helpers';
import { type Received, WebhookReceiver } from '../support/webhook-receiver';
import { linkOn, startWebhookStand, type WebhookStand, webhookEnv } from '../support/webhook-stands';
import { waitFor } from '../testkit/wait-for';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
/** A delivery blocked on the receiver times out after 10 s; an answer that waited for one would take that long. */
const PROMPT_ANSWER_MS = 2000;

/** The OAuth helpers take a connector; a stand offers the same surface. */
function asConnector(stand: WebhookStand): ConnectorUnderTest {
  return {
    baseUrl: stand.baseUrl,
    call: stand.call,
    config: { publicUrl: stand.publicUrl, linkSecret: stand.linkSecret },
  } as unknown as ConnectorUnderTest;
}

const about = (type: string, key: string, value: string) => (payload: any) => payload?.type === type && payload.data?.[key] === value;

for (const kind of BACKENDS) {
  describe(`webhook events on ${kind === 'memory' ? 'the memory backend' : 'Redis, with a built API process and a built worker process'}`, function () {
    this.timeout(60_000);
    let receiver: WebhookReceiver;
    let stand: WebhookStand;

    before(async function () {
      this.timeout(60_000);
      receiver = await WebhookReceiver.start();
      stand = await startWebhookStand(kind, webhookEnv(receiver));
    });
    after(async () => {
      await receiver?.close();
      await stand?.close();
    });
    beforeEach(() => {
      receiver.answer = () => 204;
    });

    it('a link, a job and a revocation send connection.created, job.succeeded and connection.revoked, signed, with the documented bodies', async () => {
      const subject = newSubject();
      const { token, connection_id } = await linkOn(stand, subject);
      const created = await receiver.next(about('connection.created', 'connection_id', connection_id), 'connection.created');
      expect(Object.keys(created.payload).sort()).to.deep.equal(['data', 'timestamp', 'type']);
      expect(created.payload.timestamp).to.match(ISO);
      expect(created.payload.data).to.deep.include({
        connection_id,
        subject,
        kind: 'link',
        client: null,
        last_used_at: null,
        revoked: false,
      });
      expect(created.payload.data.created_at).to.match(ISO);
      expect(created.payload.data.expires_at).to.match(ISO);

      const jobId = (await acceptedJob(stand, token, { input: { prompt: 'hello events' } })).id;
      const succeeded = await receiver.next(about('job.succeeded', 'id', jobId), 'job.succeeded');
      const shown = await stand.call('GET', `/v1/jobs/${jobId}`, { token });
      expect(shown.status, shown.text).to.equal(200);
      expect(succeeded.payload.data).to.deep.equal({ ...shown.body, subject });
      expect(succeeded.payload.data.status).to.equal('succeeded');

      const revoked = await stand.call('POST', '/v1/link/revoke', {
        body: { connection_id },
        headers: { 'x-link-secret': stand.linkSecret },
      });
      expect(revoked.body).to.deep.equal({ revoked: 1 });
      const gone = await receiver.next(about('connection.revoked', 'connection_id', connection_id), 'connection.revoked');
      expect(gone.payload.data).to.deep.include({ connection_id, subject, kind: 'link', revoked: true });

      const ids = [created, succeeded, gone].map((r) => r.id);
      for (const id of ids) expect(id).to.match(/^evt_[A-Za-z0-9_-]{26}$/);
      expect(new Set(ids).size).to.equal(3);
      expect(receiver.received.filter((r) => !r.verified)).to.deep.equal([]);
    });

    it('revoking a subject sends one connection.revoked per live connection, and none again for one revoked before', async () => {
      const subject = newSubject();
      const [first, second, third] = [await linkOn(stand, subject), await linkOn(stand, subject), await linkOn(stand, subject)];
      const headers = { 'x-link-secret': stand.linkSecret };
      expect((await stand.call('POST', '/v1/link/revoke', { body: { connection_id: first.connection_id }, headers })).body).to.deep.equal({
        revoked: 1,
      });
      await receiver.next(about('connection.revoked', 'connection_id', first.connection_id), 'the first revocation');
      expect((await stand.call('POST', '/v1/link/revoke', { body: { subject }, headers })).body).to.deep.equal({ revoked: 2 });
      for (const { connection_id } of [second, third])
        await receiver.next(about('connection.revoked', 'connection_id', connection_id), connection_id);
      const revokedEvents = receiver.matching((p) => p.type === 'connection.revoked' && p.data.subject === subject);
      expect(revokedEvents.map((r) => r.payload.data.connection_id).sort()).to.deep.equal(
        [first, second, third].map((c) => c.connection_id).sort(),
      );
    });

    it('approving an OAuth client sends connection.created with kind oauth and the client; a replayed code revokes it with connection.revoked', async () => {
      const subject = newSubject();
      const { clientId, code, verifier } = await codeFor(asConnector(stand), subject);
      const created = await receiver.next(
        (p) => p?.type === 'connection.created' && p.data.subject === subject,
        'the OAuth connection.created',
      );
      expect(created.payload.data).to.deep.include({
        kind: 'oauth',
        client: { client_id: clientId, client_name: 'Test App' },
        revoked: false,
      });
      expect((await tokenRequest(stand.baseUrl, codeForm(clientId, code, verifier))).status).to.equal(200);
      expect((await tokenRequest(stand.baseUrl, codeForm(clientId, code, verifier))).status).to.equal(400);
      const revoked = await receiver.next(
        about('connection.revoked', 'connection_id', created.payload.data.connection_id),
        'the OAuth connection.revoked',
      );
      expect(revoked.payload.data).to.deep.include({ kind: 'oauth', revoked: true });
    });

    it('a receiver answering 500 three times, then 200, gets the event four times with one webhook-id and one body, each signed', async () => {
      const subject = newSubject();
      receiver.answer = (request, attempt) => (request.payload?.data?.subject === subject && attempt <= 3 ? 500 : 200);
      const failedBefore = await stand.deliveries('connection.created', 'failed');
      const { connection_id } = await linkOn(stand, subject);
      const attempts = await waitFor(
        () => {
          const all = receiver.matching(about('connection.created', 'connection_id', connection_id));
          return all.length >= 4 ? all : undefined;
        },
        { what: 'four attempts' },
      );
      expect(attempts).to.have.length(4);
      expect(new Set(attempts.map((r) => r.id)).size).to.equal(1);
      expect(new Set(attempts.map((r) => r.body)).size).to.equal(1);
      await waitFor(async () => (await stand.deliveries('connection.created', 'failed')) - failedBefore === 3, {
        what: 'three failed attempts counted',
      });
    });

    it('a receiver answering 410 Gone is not sent the event again', async () => {
      const subject = newSubject();
      receiver.answer = (request) => (request.payload?.data?.subject === subject ? 410 : 204);
      const goneBefore = await stand.deliveries('connection.created', 'gone');
      const failedBefore = await stand.deliveries('connection.created', 'failed');
      const { connection_id } = await linkOn(stand, subject);
      await waitFor(async () => (await stand.deliveries('connection.created', 'gone')) - goneBefore === 1, { what: 'the 410 counted' });
      // The next event (recorded after the 410) arrives; the 410's event was not retried meanwhile.
      const marker = await linkOn(stand, newSubject());
      await receiver.next(about('connection.created', 'connection_id', marker.connection_id), 'the next event');
      expect(receiver.matching(about('connection.created', 'connection_id', connection_id))).to.have.length(1);
      expect(await stand.deliveries('connection.created', 'failed')).to.equal(failedBefore);
    });

    it('a receiver that never answers does not slow job submissions or the jobs themselves', async () => {
      const subject = newSubject();
      receiver.answer = () => 'hang';
      try {
        const { token, connection_id } = await linkOn(stand, subject);
        await receiver.next(about('connection.created', 'connection_id', connection_id), 'a hanging delivery');
        const ids: string[] = [];
        for (let i = 0; i < 10; i++) {
          const started = Date.now();
          ids.push((await acceptedJob(stand, token, { input: { prompt: `prompt ${i}` } })).id);
          expect(Date.now() - started, `submission ${i}`).to.be.below(PROMPT_ANSWER_MS);
        }
        for (const id of ids) {
          await pollJob(stand, token, id, inStatus('succeeded'), 5000);
        }
        // The finished jobs' deliveries are hanging too: the receiver is really not answering.
        await waitFor(() => receiver.hangingCount > 1, { what: 'more hanging deliveries' });
      } finally {
        receiver.answer = () => 204;
        receiver.cutHanging();
      }
    });

    it('a tampered body, webhook-id or webhook-timestamp fails verification at the receiver', async () => {
      const { connection_id } = await linkOn(stand, newSubject());
      const event: Received = await receiver.next(about('connection.created', 'connection_id', connection_id), 'an event');
      const headers = { id: event.id, timestamp: event.timestamp, signature: event.signature };
      expect(receiver.verify(event.body, headers)).to.deep.equal(event.payload);
      const tampered = event.body.replace('"revoked":false', '"revoked":true');
      expect(tampered).to.not.equal(event.body);
      expect(() => receiver.verify(tampered, headers)).to.throw(WebhookVerificationError);
      expect(() => receiver.verify(event.body, { ...headers, id: `${event.id}x` })).to.throw(WebhookVerificationError);
      expect(() => receiver.verify(event.body, { ...headers, timestamp: String(Number(event.timestamp) - 1) })).to.throw(
        WebhookVerificationError,
      );
    });
  });
}
