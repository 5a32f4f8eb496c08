import http from 'node:http';
import { expect } from 'chai';
import * as z from 'zod';
import { bodyLimitOf } from '../../shared/contract/operations/body-limit';
import { bearerOperation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { BACKENDS } from '../support/backends';
import { withOperations } from '../support/extra-operations';
import { type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';

interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/**
 * POSTs `body` to `path` with its Content-Length, or chunked: a body with its length that has arrived in full
 * is read directly, a chunked one always by the body parser, so the two must answer alike.
 */
function post(baseUrl: string, path: string, headers: Record<string, string>, body: Buffer, chunked: boolean): Promise<Answer> {
  const { hostname, port } = new URL(baseUrl);
  const framing = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(body.length) };
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: 'POST', path, headers: { ...headers, ...framing } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What must agree between the two readings: the status and, for a thing, what was stored; for a problem, its type and detail. */
function comparable({ status, body }: Answer): Record<string, unknown> {
  return status === 201
    ? { status, name: body.name, notes: body.notes }
    : { status, type: body.type, detail: body.detail, errors: body.errors };
}

const BODIES: Array<[string, Buffer]> = [
  ['an object', Buffer.from('{"name":"plain","notes":"n"}')],
  ['an object after whitespace', Buffer.from(' \t\r\n{"name":"spaced"}')],
  ['an object after a byte-order mark', Buffer.from('\ufeff{"name":"marked"}')],
  ['bytes that are not UTF-8 inside a string', Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0x61, 0xff, 0x22, 0x7d])],
  ['an array', Buffer.from('[{"name":"a"}]')],
  ['null', Buffer.from('null')],
  ['a string', Buffer.from('"name"')],
  ['a number', Buffer.from('1')],
  ['whitespace only', Buffer.from('   ')],
  ['a byte-order mark only', Buffer.from('\ufeff')],
  ['truncated JSON', Buffer.from('{"name":')],
  ['JSON followed by more', Buffer.from('{"name":"a"} x')],
];

const TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON;charset="UTF-8"',
  'application/json;\tcharset=utf-8',
  'application/json; charset="utf-8',
  'application/json; charset=utf-16',
  'application/json; foo=bar',
];

for (const backend of BACKENDS) {
  describe(`JSON request bodies [${backend}]`, () => {
    let c: ConnectorUnderTest;
    let auth: Record<string, string>;
    before(async () => {
      c = await startConnector(backend);
      auth = { authorization: `Bearer ${await c.link(newSubject())}` };
    });
    after(async () => c.close());

    it('every body and content type answers the same whether sent with its length or chunked', async () => {
      for (const type of TYPES) {
        for (const [what, body] of BODIES) {
          const headers = { ...auth, 'content-type': type };
          const whole = await post(c.baseUrl, '/v1/things', headers, body, false);
          const chunked = await post(c.baseUrl, '/v1/things', headers, body, true);
          expect(comparable(whole), `${what} as ${type}`).to.deep.equal(comparable(chunked));
        }
      }
    });

    it('a plain JSON object is parsed and stored, one after a byte-order mark too; a scalar answers 400', async () => {
      const headers = { ...auth, 'content-type': 'application/json' };
      expect(comparable(await post(c.baseUrl, '/v1/things', headers, Buffer.from('{"name":"stored","notes":"x"}'), false))).to.deep.equal({
        status: 201,
        name: 'stored',
        notes: 'x',
      });
      expect((await post(c.baseUrl, '/v1/things', headers, Buffer.from('\ufeff{"name":"marked"}'), false)).body).to.include({
        name: 'marked',
      });
      expect(await post(c.baseUrl, '/v1/things', headers, Buffer.from('1'), false)).to.deep.include({ status: 400 });
    });
  });
}

/** A free operation taking a text of up to 20,000 characters: its body limit is above 64 KiB. */
const storeText = bearerOperation({
  operationId: 'storeText',
  method: 'post',
  path: '/v1/texts',
  summary: 'Store a text',
  description: 'Counts the characters of a text of up to 20,000 characters. Free.',
  published: true,
  consequential: false,
  requestBody: z.strictObject({ text: z.string().min(1).max(20_000) }),
  responses: { 200: { description: 'Its length.', schema: { type: 'object' } } },
  errors: [400, 401, 413, 415, 429, 500],
  handle: async ({ body }) => ({ status: 200, body: { characters: [...body.text].length } }),
});

for (const backend of BACKENDS) {
  describe(`the body limit follows the largest body a schema allows [${backend}]`, () => {
    let c: ConnectorUnderTest;
    let headers: Record<string, string>;
    const limit = bodyLimitOf(storeText);
    before(async () => {
      c = await startConnector(backend, {}, { operations: withOperations(OPERATIONS, [storeText]) });
      headers = { authorization: `Bearer ${await c.link(newSubject())}`, 'content-type': 'application/json' };
    });
    after(async () => c.close());

    it(`20,000 emoji (80 KB of UTF-8), or the same written as escapes (240 KB), are read; the limit is ${limit} bytes, and a body over it is 413 naming it`, async () => {
      const emoji = Buffer.from(JSON.stringify({ text: '😀'.repeat(20_000) }));
      expect(emoji.length).to.be.above(64 * 1024);
      expect(await post(c.baseUrl, '/v1/texts', headers, emoji, false)).to.deep.include({ status: 200, body: { characters: 20_000 } });
      const escaped = Buffer.from(`{"text":"${'\\ud83d\\ude00'.repeat(20_000)}"}`);
      expect(escaped.length).to.be.above(200_000).and.at.most(limit);
      for (const chunked of [false, true]) {
        expect(await post(c.baseUrl, '/v1/texts', headers, escaped, chunked)).to.deep.include({
          status: 200,
          body: { characters: 20_000 },
        });
      }
      const over = Buffer.concat([Buffer.from('{"text":"'), Buffer.alloc(limit, 'x'), Buffer.from('"}')]);
      const refused = await post(c.baseUrl, '/v1/texts', headers, over, false);
      expect(refused.status).to.equal(413);
      expect(refused.body.detail).to.equal(`The request body is over the limit of ${limit} bytes.`);
      // 20,001 characters fit the byte limit but not the schema: 400.
      expect(
        (await post(c.baseUrl, '/v1/texts', headers, Buffer.from(JSON.stringify({ text: 'x'.repeat(20_001) })), false)).status,
      ).to.equal(400);
    });

    it('another operation keeps 64 KiB, and the published document states the larger limit where it applies', async () => {
      const big = Buffer.from(JSON.stringify({ name: 'n', notes: 'x'.repeat(70_000) }));
      expect((await post(c.baseUrl, '/v1/things', headers, big, false)).status).to.equal(413);
      const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
      expect(document.paths['/v1/texts'].post.requestBody.description).to.equal(`At most ${limit} bytes of JSON.`);
      expect(document.paths['/v1/things'].post.requestBody.description).to.equal(undefined);
      expect(document.components.responses.PayloadTooLarge.description).to.match(/64 KiB, or the larger limit its request body states/);
    });
  });
}
