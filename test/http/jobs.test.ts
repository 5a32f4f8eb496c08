import { expect } from 'chai';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { waitFor } from '../testkit/wait-for';

for (const backend of BACKENDS) {
  describe(`paid jobs and idempotency [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend);
    });
    after(async () => c.close());

    it('POST /v1/jobs with a key answers 202 with the queued job, Location and Retry-After', async () => {
      const token = await c.link(newSubject());
      const res = await submitPrompt(c, token, 'count my words');
      expect(res.status).to.equal(202);
      expect(res.body.id).to.match(/^job_[A-Za-z0-9_-]{32}$/);
      expect(res.body).to.include({ operation: 'createJob', cost: 1 });
      expect(res.body.input).to.deep.equal({ prompt: 'count my words' });
      expect(res.body.status).to.be.oneOf(['queued', 'running']);
      expect(res.headers.get('location')).to.equal(`/v1/jobs/${res.body.id}`);
      expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
      expect(res.headers.get('idempotent-replayed')).to.equal(null);
    });

    it('a job polled through its Location succeeds with a deterministic result and no Retry-After once final', async () => {
      const token = await c.link(newSubject());
      const created = await submitPrompt(c, token, 'one two three');
      const done = await waitFor(
        async () => {
          const res = await c.call('GET', created.headers.get('location')!, { token });
          expect(res.status).to.equal(200);
          return res.body.status === 'succeeded' ? res : undefined;
        },
        { what: 'the job to succeed' },
      );
      expect(done.headers.get('retry-after')).to.equal(null);
      expect(done.body.result).to.include({ characters: 13, words: 3, summary: 'one two three' });
      expect(done.body.result.digest).to.match(/^[0-9a-f]{16}$/);
      expect(done.body.attempts).to.equal(1);
      expect(Date.parse(done.body.finished_at)).to.be.at.least(Date.parse(done.body.started_at));
      expect(done.body.error).to.equal(null);
    });

    it('a retry with the same key and payload returns the same job, marked Idempotent-Replayed, charged once', async () => {
      const token = await c.link(newSubject());
      const key = newKey();
      const first = await submitPrompt(c, token, 'same', { key });
      const second = await submitPrompt(c, token, 'same', { key });
      expect(second.status).to.equal(202);
      expect(second.body.id).to.equal(first.body.id);
      expect(second.headers.get('idempotent-replayed')).to.equal('true');
      expect(second.headers.get('location')).to.equal(first.headers.get('location'));
      const me = await c.call('GET', '/v1/me', { token });
      expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
    });

    it('a retry after the job finished still returns that job and does not charge again', async () => {
      const token = await c.link(newSubject());
      const key = newKey();
      const first = await submitPrompt(c, token, 'finish me', { key });
      await pollJob(c, token, first.body.id, inStatus('succeeded'));
      const retry = await submitPrompt(c, token, 'finish me', { key });
      expect(retry.body).to.include({ id: first.body.id, status: 'succeeded' });
      expect(retry.headers.get('idempotent-replayed')).to.equal('true');
      expect((await c.call('GET', '/v1/me', { token })).body.usage.jobs_charged).to.equal(1);
    });

    it('50 concurrent requests with one key give one job, one charge and exactly one answer that is not a replay', async () => {
      const token = await c.link(newSubject());
      const key = newKey();
      const answers = await Promise.all(Array.from({ length: 50 }, () => submitPrompt(c, token, 'concurrent', { key })));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(50).fill(202));
      expect(new Set(answers.map((a) => a.body.id)).size).to.equal(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') !== 'true')).to.have.length(1);
      const me = await c.call('GET', '/v1/me', { token });
      expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 1, credits_refunded: 0 });
      const list = await c.call('GET', '/v1/jobs', { token });
      expect(list.body.items).to.have.length(1);
    });

    it('the same key with a different payload answers 422 and neither queues nor charges anything', async () => {
      const token = await c.link(newSubject());
      const key = newKey();
      await submitPrompt(c, token, 'original', { key });
      const conflict = await submitPrompt(c, token, 'different', { key });
      expect(conflict.status).to.equal(422);
      expect(conflict.body.type).to.equal('urn:connector:problem:idempotency-conflict');
      expect((await c.call('GET', '/v1/me', { token })).body.usage.jobs_charged).to.equal(1);
      expect((await c.call('GET', '/v1/jobs', { token })).body.items).to.have.length(1);
    });

    it('payloads equal but for key order count as the same payload', async () => {
      const token = await c.link(newSubject());
      const key = newKey();
      const a = await c.call('POST', '/v1/jobs', {
        token,
        rawBody: `{"input":{"prompt":"x"},"idempotency_key":"${key}"}`,
        headers: { 'content-type': 'application/json' },
      });
      const b = await c.call('POST', '/v1/jobs', {
        token,
        rawBody: `{"idempotency_key":"${key}","input":{"prompt":"x"}}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(b.status).to.equal(202);
      expect(b.body.id).to.equal(a.body.id);
    });

    it('the idempotency_key body field works for platforms without custom headers', async () => {
      const token = await c.link(newSubject());
      const key = newKey();
      const a = await c.call('POST', '/v1/jobs', { token, body: { input: { prompt: 'p' }, idempotency_key: key } });
      const b = await c.call('POST', '/v1/jobs', { token, body: { input: { prompt: 'p' }, idempotency_key: key } });
      expect(a.status).to.equal(202);
      expect(b.body.id).to.equal(a.body.id);
      expect(b.headers.get('idempotent-replayed')).to.equal('true');
    });

    it('when both are sent the header key wins over the body key', async () => {
      const token = await c.link(newSubject());
      const headerKey = newKey();
      const viaHeader = await submitPrompt(c, token, 'h', { key: headerKey });
      const both = await c.call('POST', '/v1/jobs', {
        token,
        body: { input: { prompt: 'h' }, idempotency_key: newKey() },
        headers: { 'idempotency-key': headerKey },
      });
      expect(both.body.id).to.equal(viaHeader.body.id);
      expect(both.headers.get('idempotent-replayed')).to.equal('true');
    });

    it('a paid call without any idempotency key answers 400 and charges nothing', async () => {
      const token = await c.link(newSubject());
      const res = await submitPrompt(c, token, 'no key', { key: null });
      expect(res.status).to.equal(400);
      expect(res.body.errors[0].path).to.equal('/headers/idempotency-key');
      expect((await c.call('GET', '/v1/me', { token })).body.usage.jobs_charged).to.equal(0);
    });

    it('an idempotency key with a control character or over 255 characters answers 400', async () => {
      const token = await c.link(newSubject());
      const tooLong = await c.call('POST', '/v1/jobs', { token, body: { input: { prompt: 'p' }, idempotency_key: 'k'.repeat(256) } });
      const control = await c.call('POST', '/v1/jobs', { token, body: { input: { prompt: 'p' }, idempotency_key: 'bad\u0001key' } });
      expect([tooLong.status, control.status]).to.deep.equal([400, 400]);
    });

    it('two subjects using the same key get two independent jobs, each charged to its own subject', async () => {
      const alice = await c.link(newSubject());
      const bob = await c.link(newSubject());
      const key = newKey();
      const a = await submitPrompt(c, alice, 'alice prompt', { key });
      const b = await submitPrompt(c, bob, 'bob prompt', { key });
      expect(a.status).to.equal(202);
      expect(b.status).to.equal(202);
      expect(b.body.id).to.not.equal(a.body.id);
      expect(b.headers.get('idempotent-replayed')).to.equal(null);
      expect((await c.call('GET', '/v1/me', { token: alice })).body.usage.jobs_charged).to.equal(1);
      expect((await c.call('GET', '/v1/me', { token: bob })).body.usage.jobs_charged).to.equal(1);
    });

    it("another subject's job is a 404 identical to an unknown id", async () => {
      const owner = await c.link(newSubject());
      const other = await c.link(newSubject());
      const job = await submitPrompt(c, owner, 'private');
      const foreign = await c.call('GET', `/v1/jobs/${job.body.id}`, { token: other });
      const unknown = await c.call('GET', '/v1/jobs/job_doesnotexist0000000000000000000', { token: other });
      expect(foreign.status).to.equal(404);
      expect(unknown.status).to.equal(404);
      const strip = (body: any) => ({ ...body, request_id: undefined });
      expect(strip(foreign.body)).to.deep.equal(strip(unknown.body));
      expect(foreign.text).to.not.contain('private');
    });

    it('GET /v1/jobs lists only the caller’s jobs, newest first, across pages', async () => {
      const token = await c.link(newSubject());
      const other = await c.link(newSubject());
      await submitPrompt(c, other, 'not mine');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await submitPrompt(c, token, `job ${i}`)).body.id);
      const first = await c.call('GET', '/v1/jobs?limit=2', { token });
      const second = await c.call('GET', `/v1/jobs?limit=2&cursor=${first.body.next_cursor}`, { token });
      const third = await c.call('GET', `/v1/jobs?limit=2&cursor=${second.body.next_cursor}`, { token });
      const seen = [...first.body.items, ...second.body.items, ...third.body.items].map((job: any) => job.id);
      expect(seen).to.deep.equal(ids.reverse());
      expect(third.body.next_cursor).to.equal(null);
    });

    it('a prompt that is empty or over 4000 characters answers 400 and charges nothing', async () => {
      const token = await c.link(newSubject());
      const empty = await submitPrompt(c, token, '');
      const long = await submitPrompt(c, token, 'x'.repeat(4001));
      expect(empty.status).to.equal(400);
      expect(long.status).to.equal(400);
      expect((await c.call('GET', '/v1/me', { token })).body.usage.jobs_charged).to.equal(0);
    });

    it('a malformed job id in the path answers 400 and an unknown well-formed one 404', async () => {
      const token = await c.link(newSubject());
      expect((await c.call('GET', '/v1/jobs/bad%20id', { token })).status).to.equal(400);
      expect((await c.call('GET', '/v1/jobs/job_unknown', { token })).status).to.equal(404);
    });
  });

  describe(`polling an unfinished job [${backend}]`, () => {
    // createJob's processor waits for the test to open the gate, so the job is certainly not final while polled.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const GATED: readonly Operation[] = OPERATIONS.map((operation) =>
      operation.operationId === 'createJob'
        ? {
            ...operation,
            job: {
              ...operation.job!,
              // Its own result, not the placeholder's.
              result: undefined,
              processor: () => async () => {
                await gate;
                return { done: true };
              },
            },
          }
        : operation,
    );
    let g: ConnectorUnderTest;
    before(async () => {
      g = await startConnector(backend, {}, { operations: GATED });
    });
    after(async () => {
      open();
      await g.close();
    });

    it('GET /v1/jobs/{id} sends Retry-After while the job is not final, and none once it is', async () => {
      const token = await g.link(newSubject());
      const created = await submitPrompt(g, token, 'wait');
      const pending = await g.call('GET', `/v1/jobs/${created.body.id}`, { token });
      expect(pending.body.status).to.be.oneOf(['queued', 'running']);
      expect(pending.headers.get('retry-after')).to.equal('2');
      open();
      const done = await waitFor(
        async () => {
          const res = await g.call('GET', `/v1/jobs/${created.body.id}`, { token });
          return res.body.status === 'succeeded' ? res : undefined;
        },
        { what: 'the job to succeed once the gate opens' },
      );
      expect(done.body.result).to.deep.equal({ done: true });
      expect(done.headers.get('retry-after')).to.equal(null);
    });
  });
}
