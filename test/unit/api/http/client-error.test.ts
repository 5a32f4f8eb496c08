import { createServer, type ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { expect } from 'chai';
import { answerClientErrors } from '../../../../api/http/client-error';

/** A socket that records what is written to it, optionally mid-way through an earlier answer. */
function fakeSocket(options: { midResponse?: boolean } = {}): Duplex & { written: string; _httpMessage?: Partial<ServerResponse> } {
  const socket = new Duplex({
    read() {},
    write(chunk, _encoding, callback) {
      socket.written += chunk.toString('latin1');
      callback();
    },
  }) as Duplex & { written: string; _httpMessage?: Partial<ServerResponse> };
  socket.written = '';
  if (options.midResponse) socket._httpMessage = { headersSent: true };
  return socket;
}

/** Emits a client error with this code on a server that has the handler, and returns the socket. */
function emit(code: string, options: { rawPacket?: Buffer; midResponse?: boolean } = {}) {
  const server = createServer();
  answerClientErrors(server);
  const socket = fakeSocket(options);
  server.emit(
    'clientError',
    Object.assign(new Error(`parser said: ${code} near 'secret-bytes'`), { code, rawPacket: options.rawPacket }),
    socket,
  );
  return socket;
}

function parse(written: string): { statusLine: string; headers: string; body: string } {
  const [head, body] = written.split('\r\n\r\n');
  const [statusLine, ...headers] = head.split('\r\n');
  return { statusLine, headers: headers.join('\n'), body };
}

describe('answers to requests the HTTP parser refuses', () => {
  const cases: Array<[string, number, string]> = [
    ['HPE_HEADER_OVERFLOW', 431, 'HTTP/1.1 431 Request Header Fields Too Large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'HTTP/1.1 408 Request Timeout'],
    ['HPE_INVALID_METHOD', 400, 'HTTP/1.1 400 Bad Request'],
    ['HPE_INVALID_HEADER_TOKEN', 400, 'HTTP/1.1 400 Bad Request'],
  ];
  for (const [code, status, statusLine] of cases) {
    it(`${code} is answered ${status} problem+json without the parser's message, then the socket is closed`, () => {
      const socket = emit(code);
      const answer = parse(socket.written);
      expect(answer.statusLine).to.equal(statusLine);
      expect(answer.headers).to.match(/^Content-Type: application\/problem\+json; charset=utf-8$/m);
      expect(answer.headers).to.match(/^Connection: close$/m);
      expect(Number(/^Content-Length: (\d+)$/m.exec(answer.headers)?.[1])).to.equal(Buffer.byteLength(answer.body));
      const problem = JSON.parse(answer.body);
      expect(problem).to.include({ status });
      expect(problem.request_id).to.equal(/^X-Request-Id: (.+)$/m.exec(answer.headers)?.[1]);
      expect(socket.written).to.not.contain('secret-bytes');
      expect(socket.destroyed).to.equal(true);
    });
  }

  it('a HEAD request gets the status and headers but no body', () => {
    const socket = emit('HPE_HEADER_OVERFLOW', { rawPacket: Buffer.from('HEAD /v1/me HTTP/1.1\r\nx-padding: ppp') });
    const answer = parse(socket.written);
    expect(answer.statusLine).to.equal('HTTP/1.1 431 Request Header Fields Too Large');
    expect(answer.body).to.equal('');
  });

  it('a reset connection, or one mid-way through an earlier answer, is closed without writing', () => {
    for (const socket of [emit('ECONNRESET'), emit('HPE_INVALID_METHOD', { midResponse: true })]) {
      expect(socket.written).to.equal('');
      expect(socket.destroyed).to.equal(true);
    }
  });
});
