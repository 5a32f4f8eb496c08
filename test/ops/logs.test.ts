import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import type { BearerOperation, BearerRequest, Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { JobError } from '../../shared/domain/jobs/job-error';
import type { Services } from '../../shared/domain/services';
import { createLogger } from '../../shared/platform/logging/logger';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { BACKENDS } from '../support/backends';
import { BASE_ENV, type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { submitPrompt } from '../support/job-submission';
import { LogCapture } from '../support/log-capture';
import { ROOT } from '../support/spawn-process';
import { waitFor } from '../testkit/wait-for';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BOOM_SUBJECT = 'boom@example.com';

/**
 * The registry with two scripted failures: `getMe` throws an internal error for BOOM_SUBJECT (a 500), and
 * createJob's processor fails for prompt "fail".
 */
const SCRIPTED: readonly Operation[] = OPERATIONS.map((operation) => {
  if (operation.operationId === 'getMe') {
    return {
      ...operation,
      handle: async (request: BearerRequest, services: Services) => {
        if (request.principal.subject === BOOM_SUBJECT) throw new Error('internal failure while reading the ledger');
        return (operation as BearerOperation).handle(request, services);
      },
    };
  }
  if (operation.operationId === 'createJob') {
    const original = operation.job!;
    return {
      ...operation,
      job: {
        ...original,
        processor: (own) => {
          const normal = original.processor(own);
          return async (input, context) => {
            if (input.prompt === 'fail') throw new JobError('This job fails on purpose.', { retryable: false });
            return normal(input, context);
          };
        },
      },
    };
  }
  return operation;
});

function parsed(c: ConnectorUnderTest): Array<Record<string, any>> {
  return c.logs.lines.map((line) => JSON.parse(line));
}

/** A random credential-looking value that is easy to search for in the log. */
function needle(prefix: string): string {
  return `${prefix}${randomBytes(12).toString('hex')}`;
}

describe('log lines of a process that dies (createLogger on stdout)', () => {
  it('every line logged before a SIGKILL has reached stdout: lines are written as they are logged', async () => {
    // The built logger, in a process of its own that logs 500 lines and is killed at once: no exit
    // handler runs, so only lines already written survive (an asynchronous destination kept 1 of 500).
    const script = `const { createLogger } = require(${JSON.stringify(path.join(ROOT, 'dist/shared/platform/logging/logger.js'))});
      const logger = createLogger('info', 'crash-test');
      for (let i = 0; i < 500; i++) logger.info({ i }, 'line');
      process.kill(process.pid, 'SIGKILL');`;
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    const signal = await new Promise((resolve) => child.once('close', (_code, killedBy) => resolve(killedBy)));
    expect(signal).to.equal('SIGKILL');
    const lines = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.i)).to.deep.equal(Array.from({ length: 500 }, (_, i) => i));
  });
});

describe('logger redaction (createLogger)', () => {
  it('removes authorization, x-link-secret, cookies, tokens and secrets wherever the listed paths put them', () => {
    const capture = new LogCapture();
    const logger = createLogger('trace', 'redaction-test', capture);
    const values = Array.from({ length: 19 }, (_, i) => needle(`v${i}-`));
    logger.info(
      {
        req: { headers: { authorization: `Bearer ${values[0]}`, 'x-link-secret': values[1], cookie: values[2] } },
        headers: { authorization: values[3], 'x-link-secret': values[4] },
        authorization: values[5],
        'x-link-secret': values[6],
        token: values[7],
        body: { token: values[8], secret: values[9] },
        secret: values[10],
        connectorSecret: values[11],
        config: {
          connectorSecret: values[12],
          linkSecret: values[13],
          redisUrl: `redis://:${values[14]}@redis:6379`,
          connectorSecretPrevious: values[16],
          linkSecretPrevious: values[17],
          webhooks: { previousSecret: values[18] },
        },
        redisUrl: values[15],
        kept: 'visible',
      },
      'dump',
    );
    expect(capture.lines).to.have.length(1);
    const line = JSON.parse(capture.lines[0]);
    expect(line).to.include({ msg: 'dump', kept: 'visible', service: 'redaction-test' });
    expect(values.filter((value) => capture.text().includes(value))).to.deep.equal([]);
  });
});

for (const backend of BACKENDS) {
  describe(`structured logs of the API [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { PLACEHOLDER_JOB_MS: '10' }, { operations: SCRIPTED });
    });
    after(async () => c.close());

    /** The access lines logged for one request id, once the response has been written. */
    const accessLines = async (requestId: string, count = 1) =>
      waitFor(
        () => {
          const lines = parsed(c).filter((line) => line.msg === 'request' && line.req_id === requestId);
          return lines.length >= count ? lines : undefined;
        },
        { what: `the access line of ${requestId}` },
      );

    it('each request gets exactly one access line with method, route template, status, duration and its X-Request-Id', async () => {
      const token = await c.link(newSubject());
      const job = (await submitPrompt(c, token, 'log me')).body.id;
      const cases: Array<[string, string, string, number, { token?: string; body?: unknown }]> = [
        ['GET', '/v1/me', '/v1/me', 200, { token }],
        ['GET', `/v1/jobs/${job}`, '/v1/jobs/{id}', 200, { token }],
        ['GET', '/v1/jobs/job_nothere', '/v1/jobs/{id}', 404, { token }],
        ['GET', '/v1/me', '/v1/me', 401, {}],
        ['POST', '/v1/things', '/v1/things', 400, { token, body: { nonsense: true } }],
        ['GET', `/nowhere/${randomBytes(4).toString('hex')}`, 'unmatched', 404, {}],
      ];
      for (const [method, path, route, status, options] of cases) {
        const requestId = `req-${randomBytes(6).toString('hex')}`;
        const res = await c.call(method, path, { ...options, headers: { 'x-request-id': requestId } });
        expect(res.status, path).to.equal(status);
        expect(res.headers.get('x-request-id'), path).to.equal(requestId);
        if (status >= 400) expect(res.body.request_id, path).to.equal(requestId);
        const lines = await accessLines(requestId);
        expect(lines, path).to.have.length(1);
        expect(lines[0], path).to.include({ method, route, status, level: 30, service: 'connector-test' });
        expect(lines[0].duration_ms, path).to.be.a('number').and.at.least(0);
        expect(Date.parse(lines[0].time), path).to.not.be.NaN;
      }
    });

    it('probe requests leave no access line at info level (they are logged at debug)', async () => {
      const probeId = `probe-${randomBytes(6).toString('hex')}`;
      const markerId = `marker-${randomBytes(6).toString('hex')}`;
      expect((await c.call('GET', '/healthz', { headers: { 'x-request-id': probeId } })).status).to.equal(200);
      expect((await c.call('GET', '/readyz', { headers: { 'x-request-id': probeId } })).status).to.equal(200);
      expect((await c.call('GET', '/v1/me', { headers: { 'x-request-id': markerId } })).status).to.equal(401);
      // Lines are written in the order requests finish: once the later request's line is there, a probe line would be too.
      expect(await accessLines(markerId)).to.have.length(1);
      expect(c.logs.lines.filter((line) => JSON.parse(line).req_id === probeId)).to.deep.equal([]);
    });

    it('an X-Request-Id that is not short and plain is replaced by a UUID, used alike in header, problem body and log', async () => {
      for (const unsafe of ['has space', 'a'.repeat(129), 'semi;colon', 'quote"d', '']) {
        const res = await c.call('GET', '/v1/me', { headers: { 'x-request-id': unsafe } });
        expect(res.status).to.equal(401);
        const generated = res.headers.get('x-request-id')!;
        expect(generated, JSON.stringify(unsafe)).to.match(UUID);
        expect(res.body.request_id).to.equal(generated);
        expect(await accessLines(generated)).to.have.length(1);
        if (unsafe) expect(c.logs.text()).to.not.include(unsafe);
      }
    });

    it('a 500 logs the cause once under the request id, with the access line at warn level', async () => {
      const token = await c.link(BOOM_SUBJECT);
      const res = await c.call('GET', '/v1/me', { token });
      expect(res.status).to.equal(500);
      const requestId = res.body.request_id as string;
      const access = await accessLines(requestId);
      expect(access[0]).to.include({ level: 40, status: 500, route: '/v1/me' });
      const errors = parsed(c).filter((line) => line.req_id === requestId && line.msg === 'request failed');
      expect(errors).to.have.length(1);
      expect(errors[0]).to.include({ level: 50, route: '/v1/me', method: 'GET' });
      expect(errors[0].err.message).to.equal('internal failure while reading the ledger');
    });

    it('a whole session at LOG_LEVEL=trace logs no token, secret, x-link-secret or Authorization value, and only JSON lines', async () => {
      const session = await startConnector(backend, { LOG_LEVEL: 'trace', PLACEHOLDER_JOB_MS: '10' }, { operations: SCRIPTED });
      const secrets = [BASE_ENV.CONNECTOR_SECRET, BASE_ENV.LINK_SECRET];
      try {
        // Tokens minted, then used for every kind of answer: 2xx, 202 jobs, 400, 404, 413, 415, 422, 500.
        const tokens: string[] = [];
        for (const subject of [newSubject(), newSubject(), BOOM_SUBJECT]) {
          const res = await session.call('POST', '/v1/link', { body: { subject }, headers: { 'x-link-secret': BASE_ENV.LINK_SECRET } });
          expect(res.status).to.equal(201);
          tokens.push(res.body.token);
        }
        const [alice, bob, boom] = tokens;
        const key = newKey();
        const job = await submitPrompt(session, alice, 'fine', { key });
        const failing = await submitPrompt(session, alice, 'fail');
        const statuses = [
          job.status,
          failing.status,
          (await submitPrompt(session, alice, 'other', { key })).status,
          (await session.call('POST', '/v1/things', { token: bob, body: { name: 1, token: needle('body-token-') } })).status,
          (await session.call('POST', '/v1/things', { token: bob, rawBody: '{"name": ', headers: { 'content-type': 'application/json' } }))
            .status,
          (await session.call('POST', '/v1/things', { token: bob, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } })).status,
          (await session.call('POST', '/v1/things', { token: bob, body: { name: 'x'.repeat(70_000) } })).status,
          (await session.call('GET', '/v1/jobs/job_none', { token: bob })).status,
          (await session.call('GET', '/v1/me', { token: boom })).status,
        ];
        expect(statuses).to.deep.equal([202, 202, 422, 400, 400, 415, 413, 404, 500]);

        // Refused credentials, each a distinct searchable value.
        const bogus = [needle('bogus-token-'), needle('bogus-token-')];
        const wrongSecrets = [needle('wrong-link-secret-'), needle('wrong-link-secret-')];
        const expired = jwt.sign({ iat: 1, exp: 2 }, deriveKeys(BASE_ENV.CONNECTOR_SECRET).tokenKey, {
          algorithm: 'HS256',
          issuer: BASE_ENV.PUBLIC_URL,
          audience: BASE_ENV.PUBLIC_URL,
          subject: 'x',
          jwtid: 'conn_x',
        });
        const refused = [
          (await session.call('GET', '/v1/me', { token: bogus[0] })).status,
          (await session.call('GET', '/v1/me', { headers: { authorization: `Basic ${bogus[1]}` } })).status,
          (await session.call('GET', '/v1/me', { token: expired })).status,
          (await session.call('POST', '/v1/link', { body: { subject: 'x' }, headers: { 'x-link-secret': wrongSecrets[0] } })).status,
          (await session.call('POST', '/v1/link/revoke', { body: { subject: 'x' }, headers: { 'x-link-secret': wrongSecrets[1] } })).status,
        ];
        expect(refused).to.deep.equal([401, 401, 401, 401, 401]);
        // A revoked token used after revocation.
        expect(
          (
            await session.call('POST', '/v1/link/revoke', {
              body: { subject: BOOM_SUBJECT },
              headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
            })
          ).status,
        ).to.equal(200);
        expect((await session.call('GET', '/v1/me', { token: boom })).status).to.equal(401);
        await pollJob(session, alice, failing.body.id, inStatus('failed'));
        await pollJob(session, alice, job.body.id, inStatus('succeeded'));

        const lines = session.logs.lines;
        for (const line of lines) expect(() => JSON.parse(line), line).to.not.throw();
        // At least one access line per request above (3 + 9 + 5 + 2 + the polls).
        expect(lines.filter((line) => JSON.parse(line).msg === 'request').length).to.be.at.least(21);
        const text = session.logs.text();
        // Whole values, and the signature part of each JWT on its own (a partial leak is a leak).
        const forbidden = [...secrets, ...tokens, ...tokens.map((t) => t.split('.')[2]), expired, ...bogus, ...wrongSecrets];
        expect(forbidden.filter((value) => text.includes(value))).to.deep.equal([]);
        expect(text).to.not.match(/Bearer |Basic |x-link-secret"\s*:/i);
        // The session did log what operators need: access lines, the 500's cause, the failed job.
        const messages = new Set(lines.map((line) => JSON.parse(line).msg));
        // At trace a job's start and success (debug lines) are written too.
        for (const msg of ['request', 'request failed', 'job started', 'job succeeded', 'job failed'])
          expect(messages, msg).to.include(msg);
      } finally {
        await session.close();
      }
    });

    it('LOG_LEVEL=warn drops access lines of answers below 500 but keeps a 500 and its cause', async () => {
      const quiet = await startConnector(backend, { LOG_LEVEL: 'warn' }, { operations: SCRIPTED });
      try {
        const token = await quiet.link(newSubject());
        expect((await quiet.call('GET', '/v1/me', { token })).status).to.equal(200);
        expect((await quiet.call('GET', '/v1/me')).status).to.equal(401);
        const boom = await quiet.call('GET', '/v1/me', { token: await quiet.link(BOOM_SUBJECT) });
        expect(boom.status).to.equal(500);
        const requestId = boom.body.request_id;
        await waitFor(() => quiet.logs.lines.some((line) => JSON.parse(line).req_id === requestId && JSON.parse(line).msg === 'request'), {
          what: 'the 500 access line',
        });
        const lines = quiet.logs.lines.map((line) => JSON.parse(line));
        expect(
          lines.every((line) => line.level >= 40),
          JSON.stringify(lines),
        ).to.equal(true);
        expect(lines.filter((line) => line.msg === 'request').map((line) => line.status)).to.deep.equal([500]);
        expect(lines.filter((line) => line.msg === 'request failed').map((line) => line.req_id)).to.deep.equal([requestId]);
      } finally {
        await quiet.close();
      }
    });

    it('LOG_LEVEL=silent writes no line at all, even for a 500', async () => {
      const silent = await startConnector(backend, { LOG_LEVEL: 'silent' }, { operations: SCRIPTED });
      try {
        const boom = await silent.call('GET', '/v1/me', { token: await silent.link(BOOM_SUBJECT) });
        expect(boom.status).to.equal(500);
        // A marker request at the same connector: once its response is in, any line for the 500 would be too.
        expect((await silent.call('GET', '/healthz')).status).to.equal(200);
        expect(silent.logs.lines).to.deep.equal([]);
      } finally {
        await silent.close();
      }
    });
  });
}
