import http from 'node:http';
import { expect } from 'chai';
import express, { type NextFunction, type Request, type Response } from 'express';
import { jsonBody } from '../../../../api/middleware/json-body';
import { DEFAULT_BODY_LIMIT_BYTES } from '../../../../shared/contract/operations/body-limit';
import { listen } from '../../../../shared/platform/lifecycle/listen';

describe('jsonBody', () => {
  let server: http.Server;
  let base: string;
  /** Called as each request's head reaches the app, before its body is read. */
  let headSeen: () => void = () => undefined;

  before(async () => {
    const app = express();
    app.use((_req, _res, next) => {
      headSeen();
      next();
    });
    app.use(jsonBody);
    app.post('/', (req: Request, res: Response) => res.json({ body: req.body ?? null }));
    app.use((error: { status?: number; message: string }, _req: Request, res: Response, _next: NextFunction) => {
      res.status(error.status ?? 500).json({ error: error.message });
    });
    server = http.createServer(app);
    base = `http://127.0.0.1:${await listen(server, 0, '127.0.0.1')}/`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));

  /** POSTs `body` with `type`; returns the status and the JSON answer. */
  async function post(body: string | undefined, type = 'application/json') {
    const res = await fetch(base, { method: 'POST', headers: { 'content-type': type }, body });
    return { status: res.status, answer: (await res.json()) as { body?: unknown; error?: string } };
  }

  it('a plain JSON object or array: parsed, leading whitespace and a byte-order mark allowed', async () => {
    expect(await post('{"a":1}')).to.deep.equal({ status: 200, answer: { body: { a: 1 } } });
    expect(await post(' \n[1,2]')).to.deep.equal({ status: 200, answer: { body: [1, 2] } });
    expect(await post('\uFEFF{"b":true}')).to.deep.equal({ status: 200, answer: { body: { b: true } } });
  });

  it('the UTF-8 charset, quoted or not: accepted like plain JSON', async () => {
    for (const type of ['application/json; charset=utf-8', 'application/json;charset="utf-8"'])
      expect(await post('{"c":"é"}', type), type).to.deep.equal({ status: 200, answer: { body: { c: 'é' } } });
  });

  it('broken JSON, or a top-level value that is not an object or an array: 400', async () => {
    for (const body of ['{"a":', '"text"', '42', '{"a":1} trailing']) expect((await post(body)).status, body).to.equal(400);
  });

  it('another media type: 415 before the body is read', async () => {
    expect((await post('a=1', 'application/x-www-form-urlencoded')).status).to.equal(415);
    expect((await post('{"a":1}', 'text/plain')).status).to.equal(415);
  });

  it('no body: passed on without one', async () => {
    expect(await post(undefined)).to.deep.equal({ status: 200, answer: { body: null } });
  });

  it('a body over the default limit: refused with 413', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(DEFAULT_BODY_LIMIT_BYTES) });
    expect((await post(big)).status).to.equal(413);
  });

  it('a body sent only after its head reached the app: parsed once it arrives, as one sent with its head', async () => {
    const seen = new Promise<void>((resolve) => (headSeen = resolve));
    const body = '{"late":true}';
    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = http.request(base, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': body.length },
      });
      request.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      request.on('error', reject);
      request.flushHeaders();
      void seen.then(() => request.end(body));
    });
    const { status, text } = await answer;
    headSeen = () => undefined;
    expect(status).to.equal(200);
    expect(JSON.parse(text)).to.deep.equal({ body: { late: true } });
  });
});
