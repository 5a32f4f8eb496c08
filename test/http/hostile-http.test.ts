import net from 'node:net';
import { expect } from 'chai';
import { CHAIN_ERRORS } from '../../shared/contract/description/chain-errors';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { BACKENDS } from '../support/backends';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { RawClient, type RawResponse } from '../support/raw-client';

const PROBLEM = /^application\/problem\+json(;|$)/;

function expectProblem(res: RawResponse, status: number): void {
  expect(res.status, res.text).to.equal(status);
  expect(res.headers.get('content-type')).to.match(PROBLEM);
  const body = JSON.parse(res.text);
  expect(body).to.include({ status });
  for (const field of ['type', 'title', 'detail']) expect(body[field]).to.be.a('string');
}

/** Sends raw bytes on one connection and resolves with everything the server wrote before closing it. */
function exchange(port: number, steps: readonly string[]): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const answers: string[] = [];
    let current = '';
    let step = 0;
    socket.on('connect', () => socket.write(steps[step++]));
    socket.on('data', (chunk) => {
      current += chunk.toString('latin1');
      // One answer per step: the next step goes out once this answer's body is complete.
      const [head, body = ''] = current.split('\r\n\r\n');
      const length = Number(/content-length: *(\d+)/i.exec(head)?.[1] ?? 0);
      if (current.includes('\r\n\r\n') && Buffer.byteLength(body, 'latin1') >= length) {
        answers.push(current);
        current = '';
        if (step < steps.length) socket.write(steps[step++]);
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(current ? [...answers, current] : answers));
  });
}

/*
 * Regression tests for what the fuzzer (test/http/fuzz.test.ts) found: answers that were not problem+json,
 * and answers the published document did not declare.
 */
for (const backend of BACKENDS) {
  describe(`hostile HTTP [${backend}]`, () => {
    let c: ConnectorUnderTest;
    let raw: RawClient;
    let token: string;
    before(async () => {
      c = await startConnector(backend);
      raw = new RawClient(c.baseUrl);
      token = await c.link(newSubject());
    });
    after(async () => {
      raw.close();
      await c.close();
    });

    it('headers over the server limit answer 431 problem+json, not a bare status line', async () => {
      const res = await raw.send({
        method: 'GET',
        path: '/v1/me',
        headers: { authorization: `Bearer ${token}`, 'x-padding': 'p'.repeat(64 * 1024) },
      });
      expectProblem(res, 431);
      expect(JSON.parse(res.text).request_id).to.equal(res.headers.get('x-request-id'));
    });

    it('a HEAD request with headers over the limit answers 431 with the problem type but no body', async () => {
      const res = await raw.send({ method: 'HEAD', path: '/v1/me', headers: { 'x-padding': 'p'.repeat(32 * 1024) } });
      expect(res.status).to.equal(431);
      expect(res.headers.get('content-type')).to.match(PROBLEM);
      expect(res.text).to.equal('');
    });

    it('a method the HTTP parser does not know answers 400 problem+json', async () => {
      expectProblem(await raw.send({ method: 'BREW', path: '/v1/me', headers: {} }), 400);
    });

    it('unparseable HTTP on a keep-alive connection that already had an answer still gets a problem+json 400', async () => {
      const port = Number(new URL(c.baseUrl).port);
      const [first, second] = await exchange(port, ['GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 'NOT HTTP AT ALL\r\n\r\n']);
      expect(first).to.match(/^HTTP\/1\.1 200 /);
      expect(second).to.match(/^HTTP\/1\.1 400 /);
      expect(second).to.match(/content-type: application\/problem\+json/i);
      expect(JSON.parse(second.split('\r\n\r\n')[1])).to.include({ status: 400 });
    });

    it('an HTTP/1.1 request without Host answers 400 problem+json; an HTTP/1.0 one without Host is served', async () => {
      const port = Number(new URL(c.baseUrl).port);
      const [missing] = await exchange(port, ['GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n']);
      expect(missing).to.match(/^HTTP\/1\.1 400 /);
      expect(missing).to.match(/content-type: application\/problem\+json/i);
      expect(JSON.parse(missing.split('\r\n\r\n')[1])).to.include({ status: 400, detail: 'An HTTP/1.1 request needs a Host header.' });
      const [old] = await exchange(port, ['GET /healthz HTTP/1.0\r\n\r\n']);
      expect(old).to.match(/^HTTP\/1\.1 200 /);
    });

    it('an Expect other than 100-continue answers 417 problem+json; 100-continue still works', async () => {
      const refused = await raw.send({
        method: 'GET',
        path: '/v1/me',
        headers: { authorization: `Bearer ${token}`, expect: 'the-impossible' },
      });
      expectProblem(refused, 417);
      const port = Number(new URL(c.baseUrl).port);
      const answers = await exchange(port, [
        `GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      ]);
      expect(answers.join('')).to.match(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    });

    it('ambiguous framing (request smuggling shapes) is refused with a problem+json 400 and the connection closed', async () => {
      const port = Number(new URL(c.baseUrl).port);
      const attempts = [
        'POST /v1/things HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
        'POST /v1/things HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
        'GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization : Bearer x\r\n\r\n',
        'GET /v1/me HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n',
      ];
      for (const attempt of attempts) {
        const answers = await exchange(port, [attempt]);
        expect(answers, JSON.stringify(attempt)).to.have.length(1);
        expect(answers[0], JSON.stringify(attempt)).to.match(/^HTTP\/1\.1 400 /);
        expect(answers[0]).to.match(/content-type: application\/problem\+json/i);
      }
    });

    it('a GET with an unknown query parameter or a non-JSON body answers a 400 or 415 the document declares', async () => {
      const authorization = `Bearer ${token}`;
      const cases: Array<[string, Record<string, string>, string | undefined, number]> = [
        ['/v1/me?admin=1', {}, undefined, 400],
        ['/v1/me', { 'content-type': 'text/plain' }, 'x', 415],
        ['/v1/me', { 'content-type': 'application/json' }, '{', 400],
      ];
      for (const [path, headers, body, status] of cases) {
        const res = await raw.send({ method: 'GET', path, headers: { authorization, ...headers }, body });
        expect(res.status, `${path} ${body}`).to.equal(status);
        // The checker throws if the status is not declared for the operation in the published document.
        c.checker.check({ method: 'GET', path, status: res.status, headers: res.headers, text: res.text });
      }
    });

    it('every operation in the document declares the errors the shared request chain can answer', () => {
      const document = buildOpenApiDocument(OPERATIONS, '/');
      for (const [path, methods] of Object.entries<Record<string, any>>(document.paths)) {
        for (const [method, operation] of Object.entries<any>(methods)) {
          expect(Object.keys(operation.responses), `${method} ${path}`).to.include.members(CHAIN_ERRORS.map(String));
        }
      }
    });

    it('fixed routes match exactly: a trailing slash or other case answers 404 problem+json', async () => {
      for (const path of ['/openapi.json/', '/OPENAPI.JSON', '/llms.txt/', '/healthz/', '/Readyz']) {
        expectProblem(await raw.send({ method: 'GET', path, headers: {} }), 404);
      }
    });
  });
}
