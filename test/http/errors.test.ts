import { expect } from 'chai';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { JobError } from '../../shared/domain/jobs/job-error';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { waitFor } from '../testkit/wait-for';

const PROBLEM = /^application\/problem\+json/;

/** The registry with `getMe` made to throw an internal error that must not leak. */
const BROKEN_ME: readonly Operation[] = OPERATIONS.map((operation) =>
  operation.operationId === 'getMe'
    ? {
        ...operation,
        handle: async () => {
          throw new Error('db password hunter2 at /srv/app/internal.ts:42');
        },
      }
    : operation,
);

/** The registry with createJob's processor failing: safely on prompt "safe", with an internal message otherwise. */
const FAILING_JOBS: readonly Operation[] = OPERATIONS.map((operation) =>
  operation.operationId === 'createJob'
    ? {
        ...operation,
        job: {
          ...operation.job!,
          processor: () => async (input) => {
            if (input.prompt === 'safe') throw new JobError('The prompt could not be handled.');
            if (input.prompt === 'final') throw new JobError('Not retryable.', { retryable: false });
            throw new Error('ECONNREFUSED 10.0.0.7:5432 secret-internal-detail');
          },
        },
      }
    : operation,
);

for (const backend of BACKENDS) {
  describe(`errors as problem+json [${backend}]`, () => {
    let c: ConnectorUnderTest;
    let token: string;
    before(async () => {
      c = await startConnector(backend);
      token = await c.link(newSubject());
    });
    after(async () => c.close());

    it('an unknown route answers 404 problem+json with the request id', async () => {
      for (const path of ['/nope', '/v1/unknown', '/v2/me', '/v1/me/extra']) {
        const res = await c.call('GET', path, { token });
        expect(res.status, path).to.equal(404);
        expect(res.headers.get('content-type')).to.match(PROBLEM);
        expect(res.body).to.include({ status: 404, title: 'Not found' });
        expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
      }
    });

    it('a known path with a wrong method answers 405 with an Allow header', async () => {
      const del = await c.call('DELETE', '/v1/jobs', { token });
      expect(del.status).to.equal(405);
      expect(del.headers.get('allow')).to.equal('GET, POST');
      const put = await c.call('PUT', '/v1/me', { token });
      expect(put.status).to.equal(405);
      expect(put.headers.get('allow')).to.equal('GET');
      expect(put.headers.get('content-type')).to.match(PROBLEM);
    });

    it('a body over 64 KiB answers 413', async () => {
      const res = await c.call('POST', '/v1/things', {
        token,
        rawBody: JSON.stringify({ name: 'x', notes: 'y'.repeat(70_000) }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.status).to.equal(413);
      expect(res.headers.get('content-type')).to.match(PROBLEM);
    });

    it('a body that is not application/json answers 415', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
        const res = await c.call('POST', '/v1/things', { token, rawBody: 'name=x', headers: { 'content-type': type } });
        expect(res.status, type).to.equal(415);
      }
    });

    it('malformed JSON, a JSON array or null body answers 400', async () => {
      for (const raw of ['{"name":', '[{"name":"a"}]', 'null', '"name"']) {
        const res = await c.call('POST', '/v1/things', { token, rawBody: raw, headers: { 'content-type': 'application/json' } });
        expect(res.status, raw).to.equal(400);
        expect(res.text).to.not.match(/SyntaxError|at JSON|node_modules/);
      }
    });

    it('a POST without a body answers 400', async () => {
      const res = await c.call('POST', '/v1/things', { token, headers: { 'content-type': 'application/json' } });
      expect(res.status).to.equal(400);
    });

    it('every /v1 answer carries Cache-Control: no-store, errors included', async () => {
      for (const [method, path] of [
        ['GET', '/v1/me'],
        ['GET', '/v1/nope'],
        ['DELETE', '/v1/jobs'],
      ]) {
        const res = await c.call(method, path, { token });
        expect(res.headers.get('cache-control'), `${method} ${path}`).to.equal('no-store');
      }
    });

    it('a sane X-Request-Id is echoed; an unsafe one is replaced by a generated id', async () => {
      const sane = await c.call('GET', '/v1/nope', { headers: { 'x-request-id': 'req-123.abc' } });
      expect(sane.headers.get('x-request-id')).to.equal('req-123.abc');
      expect(sane.body.request_id).to.equal('req-123.abc');
      const unsafe = await c.call('GET', '/v1/nope', { headers: { 'x-request-id': '<script>alert(1)</script>' } });
      expect(unsafe.headers.get('x-request-id')).to.match(/^[0-9a-f-]{36}$/);
    });
  });

  describe(`rate limiting [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { RATE_LIMIT_PER_MINUTE: '3' });
    });
    after(async () => c.close());

    it('the request past the per-subject limit answers 429 with Retry-After; another subject is unaffected', async () => {
      const token = await c.link(newSubject());
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 4; i++) {
        last = await c.call('GET', '/v1/me', { token });
        statuses.push(last.status);
      }
      expect(statuses).to.deep.equal([200, 200, 200, 429]);
      expect(Number(last!.headers.get('retry-after'))).to.be.within(1, 60);
      expect(last!.headers.get('content-type')).to.match(PROBLEM);
      const other = await c.link(newSubject());
      expect((await c.call('GET', '/v1/me', { token: other })).status).to.equal(200);
    });
  });

  describe(`internal errors [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, {}, { operations: BROKEN_ME });
    });
    after(async () => c.close());

    it('an unexpected error answers a generic 500 problem; the cause goes only to the log with the request id', async () => {
      const token = await c.link(newSubject());
      const res = await c.call('GET', '/v1/me', { token });
      expect(res.status).to.equal(500);
      expect(res.headers.get('content-type')).to.match(PROBLEM);
      expect(res.text).to.not.match(/hunter2|internal\.ts|stack|Error:/);
      const logged = c.logs.lines.map((line) => JSON.parse(line)).find((line) => line.req_id === res.body.request_id && line.err);
      expect(logged?.err?.message).to.contain('hunter2');
    });
  });

  describe(`failing jobs [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { JOB_ATTEMPTS: '3', JOB_BACKOFF_MS: '5' }, { operations: FAILING_JOBS });
    });
    after(async () => c.close());

    const runToEnd = async (prompt: string) => {
      const token = await c.link(newSubject());
      const created = await submitPrompt(c, token, prompt);
      const job = await waitFor(
        async () => {
          const res = await c.call('GET', `/v1/jobs/${created.body.id}`, { token });
          return res.body.status === 'failed' ? res.body : undefined;
        },
        { what: 'the job to fail' },
      );
      return { job, token };
    };

    it('a processor that keeps failing is retried with backoff, then the job is failed with its safe message', async () => {
      const { job, token } = await runToEnd('safe');
      expect(job.attempts).to.equal(3);
      expect(job.error).to.deep.equal({ message: 'The prompt could not be handled.' });
      expect(job.result).to.equal(null);
      expect((await c.call('GET', '/v1/me', { token })).body.usage.jobs_charged).to.equal(1);
    });

    it('an unexpected processor error is shown as a generic message, never the cause', async () => {
      const { job } = await runToEnd('boom');
      expect(job.error.message).to.equal('The job could not be completed.');
      expect(JSON.stringify(job)).to.not.match(/ECONNREFUSED|secret-internal/);
    });

    it('a JobError marked not retryable fails the job after one attempt', async () => {
      const { job } = await runToEnd('final');
      expect(job.attempts).to.equal(1);
      expect(job.error.message).to.equal('Not retryable.');
    });
  });
}
