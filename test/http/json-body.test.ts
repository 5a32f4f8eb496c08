import http from 'node:http';
import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { newSubject, startConnector, type ConnectorUnderTest } from '../support/harness';

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
