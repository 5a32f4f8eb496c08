import { expect } from 'chai';
import fc from 'fast-check';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { BACKENDS, type BackendKind } from '../support/backends';
import { freshClaims, hmacToken, nowSeconds, unsignedToken } from '../support/forged-tokens';
import { BASE_ENV, type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import type { OpenApiResponseChecker } from '../support/openapi-check';
import { RawClient, type RawResponse } from '../support/raw-client';
import { type FuzzCredentials, type FuzzRequest, requestArbitrary } from '../support/request-arbitrary';

/*
 * Property-based fuzzing of every route over HTTP. Requests are derived from the document the registry
 * generates (so a new operation is fuzzed without touching this file) and mixed with hostile changes.
 * Each fast-check run sends a batch of requests at once, which keeps thousands of them short.
 *
 *   FUZZ_REQUESTS  requests per backend (defaults below: 12,000 in total)
 *   FUZZ_SEED      replay a failing run: its seed, printed on failure
 *   FUZZ_PATH      with FUZZ_SEED, replay straight to the shrunk counterexample
 */
const BATCH = 25;
const DEFAULT_REQUESTS: Record<BackendKind, number> = { memory: 6000, redis: 6000 };
/** Below this many requests a run is too small to expect every operation to have been reached. */
const COVERAGE_MINIMUM = 1000;

const PROBLEM = /^application\/problem\+json(;|$)/;
const DOCUMENT = buildOpenApiDocument(OPERATIONS, '/');
const OPERATION_PATTERNS = Object.entries<Record<string, { responses?: Record<string, unknown> }>>(DOCUMENT.paths).flatMap(
  ([template, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({
      name: `${method.toUpperCase()} ${template}`,
      method: method.toUpperCase(),
      pattern: new RegExp(`^${template.replace(/\{\w+\}/g, '[^/?]+')}(\\?|$)`),
      // An operation on a resource that must exist (by id in its path or its body: it declares a 404) can only
      // succeed for one that does; its 404 shows the request got through routing, authentication and validation.
      reachedWith: operation.responses?.['404'] ? [200, 201, 202, 204, 404] : [200, 201, 202, 204],
    })),
);

function describeRequest(request: FuzzRequest): string {
  const headers = Object.fromEntries(
    Object.entries(request.headers).map(([k, v]) => [k, v.length > 200 ? `${v.slice(0, 200)}…(${v.length} chars)` : v]),
  );
  const body = request.body === undefined ? '' : request.body.toString().slice(0, 300);
  return `${request.method} ${request.path.slice(0, 300)} headers=${JSON.stringify(headers)} body=${JSON.stringify(body)}${request.body && request.body.length > 300 ? `…(${request.body.length} bytes)` : ''}`;
}

/** The properties every answer must have, whatever was sent. */
function checkAnswer(checker: OpenApiResponseChecker, request: FuzzRequest, res: RawResponse): void {
  const where = `${describeRequest(request)}\n  → ${res.status} ${res.headers.get('content-type')} ${res.text.slice(0, 300)}`;
  expect(res.status, `no 5xx: ${where}`).to.be.below(500);
  if (request.parserRejects) expect(res.status, `refused by the HTTP parser: ${where}`).to.equal(request.parserRejects);
  const success = res.status >= 200 && res.status < 300;
  if (!success) {
    expect(res.headers.get('content-type') ?? '', `an error is problem+json: ${where}`).to.match(PROBLEM);
    if (request.method !== 'HEAD') {
      const problem = JSON.parse(res.text);
      for (const field of ['type', 'title', 'detail']) expect(problem[field], `problem.${field}: ${where}`).to.be.a('string');
      expect(problem.status, `problem.status equals the HTTP status: ${where}`).to.equal(res.status);
    }
  }
  // HEAD answers carry no body to check; what Node refuses before the app is no operation's answer.
  if (request.method !== 'HEAD' && !request.parserRejects) {
    try {
      checker.check({ method: request.method, path: request.path, status: res.status, headers: res.headers, text: res.text });
    } catch (error) {
      throw new Error(`${(error as Error).message}\n  ${where}`);
    }
  }
}

/** The live token, refused ones, and a thing and a job of the token's subject so that reads by id can succeed. */
async function makeCredentials(c: ConnectorUnderTest): Promise<FuzzCredentials> {
  const subject = newSubject();
  const token = await c.link(subject);
  // Prepaid, so that every operation can succeed (the credit grants answer 409 in metered mode); funded for
  // every paid job the fuzzer may start.
  const grant = await c.call('POST', '/v1/link/credits', {
    body: { subject, credits: 1_000_000, grant_id: newKey() },
    headers: { 'x-link-secret': c.config.linkSecret },
  });
  const revokedSubject = newSubject();
  const revoked = await c.link(revokedSubject);
  await c.call('POST', '/v1/link/revoke', { body: { subject: revokedSubject }, headers: { 'x-link-secret': c.config.linkSecret } });
  const key = deriveKeys(BASE_ENV.CONNECTOR_SECRET).tokenKey;
  const claims = freshClaims(c.config.publicUrl, subject, 'conn_forged');
  const thing = await c.call('POST', '/v1/things', { token, body: { name: 'fuzz' } });
  const job = await submitPrompt(c, token, 'fuzz');
  expect([grant.status, thing.status, job.status]).to.deep.equal([201, 201, 202]);
  return {
    token,
    badTokens: [
      revoked,
      hmacToken({ alg: 'HS256', typ: 'JWT' }, { ...claims, exp: nowSeconds() - 60 }, key),
      unsignedToken(claims),
      hmacToken({ alg: 'HS256', typ: 'JWT' }, claims, BASE_ENV.CONNECTOR_SECRET),
      'not-a-jwt',
      'a.b.c',
      '...',
      'x'.repeat(5000),
    ],
    linkSecret: c.config.linkSecret,
    knownIds: [thing.body.id, job.body.id],
  };
}

function fuzzBackend(backend: BackendKind): void {
  describe(`fuzzing every route [${backend}]`, function () {
    // Generous: the run is sized to take well under a minute, but the machine may be loaded.
    this.timeout(600_000);
    let c: ConnectorUnderTest;
    let raw: RawClient;
    before(async () => {
      // Limits high enough that the fuzzer's own volume (and its many refused tokens) is never what it
      // measures; jobs finish at once.
      c = await startConnector(backend, {
        RATE_LIMIT_PER_MINUTE: '1000000',
        AUTH_FAILURES_PER_MINUTE: '1000000',
        PLACEHOLDER_JOB_MS: '0',
        BILLING_MODE: 'prepaid',
        SHUTDOWN_GRACE_MS: '2000',
        LOG_LEVEL: 'warn',
      });
      raw = new RawClient(c.baseUrl);
    });
    after(async () => {
      raw?.close();
      await c?.close();
    });

    const requests = Number(process.env.FUZZ_REQUESTS ?? DEFAULT_REQUESTS[backend]);
    it(`${requests} random requests: never a 5xx, every error problem+json, every answer as documented`, async () => {
      const credentials = await makeCredentials(c);
      const reached = new Set<string>();
      let sent = 0;
      const property = fc.asyncProperty(
        fc.array(requestArbitrary(DOCUMENT, credentials), { minLength: BATCH, maxLength: BATCH }),
        async (batch) => {
          const answers = await Promise.all(
            batch.map((request) =>
              raw.send(request).catch((error: Error) => Promise.reject(new Error(`${error.message}: ${describeRequest(request)}`))),
            ),
          );
          sent += batch.length;
          batch.forEach((request, i) => {
            checkAnswer(c.checker, request, answers[i]);
            const operation = OPERATION_PATTERNS.find((o) => o.method === request.method && o.pattern.test(request.path));
            if (operation?.reachedWith.includes(answers[i].status)) reached.add(operation.name);
          });
        },
      );
      const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
      const details = await fc.check(property, { numRuns: Math.ceil(requests / BATCH), seed, path: process.env.FUZZ_PATH });
      if (details.failed) {
        const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        throw new Error(
          `fuzzing failed; replay with FUZZ_SEED=${details.seed} FUZZ_PATH="${details.counterexamplePath}" ` +
            `(shrunk ${details.numShrinks} times)\n${error}\nthe shrunk batch:\n${(details.counterexample?.[0] ?? []).map(describeRequest).join('\n')}`,
        );
      }
      expect(sent, 'requests sent').to.be.at.least(requests);
      if (requests >= COVERAGE_MINIMUM) {
        const missing = OPERATION_PATTERNS.filter((o) => !reached.has(o.name)).map((o) => o.name);
        expect(
          missing,
          'operations never reached (no 2xx, or no 404 for one by id): the valid-shaped requests are not valid',
        ).to.deep.equal([]);
      }
      // The connector runs in this process: a `__proto__` or `constructor.prototype` key that reached an
      // unsafe merge would show here.
      expect(Object.prototype, 'Object.prototype is not polluted').to.not.have.own.property('admin');
      const failures = c.logs.lines.filter((line) => line.includes('"request failed"'));
      expect(failures, 'no unexpected error was logged').to.deep.equal([]);
    });
  });
}

for (const backend of BACKENDS) fuzzBackend(backend);
