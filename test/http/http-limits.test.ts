import net from 'node:net';
import { expect } from 'chai';
import { type ConnectorUnderTest, startConnector } from '../support/harness';
import { waitFor } from '../testkit/wait-for';

/** Sends `raw` on a fresh socket and collects everything the server writes until it closes the socket. */
function rawExchange(port: number, raw: string): { reply(): string; closed: Promise<void> } {
  const socket = net.connect(port, '127.0.0.1');
  let reply = '';
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => (reply += chunk));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.write(raw);
  return { reply: () => reply, closed };
}

describe('HTTP limits of the API listener', function () {
  this.timeout(30_000);
  let connector: ConnectorUnderTest;
  let port: number;

  before(async () => {
    connector = await startConnector('memory', {
      HTTP_HEADERS_TIMEOUT_MS: '1000',
      HTTP_REQUEST_TIMEOUT_MS: '2000',
      HTTP_MAX_HEADER_BYTES: '8192',
    });
    port = Number(new URL(connector.baseUrl).port);
  });
  after(async () => {
    await connector?.close();
  });

  it('announces a keep-alive of 75 s by default, longer than a typical ingress keeps idle upstream connections', async () => {
    const res = await fetch(`${connector.baseUrl}/healthz`);
    expect(res.status).to.equal(200);
    expect(res.headers.get('keep-alive')).to.equal('timeout=75');
  });

  it('answers 431 to a URL past the header byte limit (the request line counts toward it)', async () => {
    const res = await fetch(`${connector.baseUrl}/v1/things?x=${'a'.repeat(9000)}`);
    expect(res.status).to.equal(431);
  });

  it('answers 431 to headers past the limit', async () => {
    const res = await fetch(`${connector.baseUrl}/healthz`, { headers: { 'x-padding': 'a'.repeat(9000) } });
    expect(res.status).to.equal(431);
  });

  it('a request just under the limit is served', async () => {
    const res = await fetch(`${connector.baseUrl}/healthz`, { headers: { 'x-padding': 'a'.repeat(6000) } });
    expect(res.status).to.equal(200);
  });

  it('cuts a client whose headers never finish with 408 once the headers timeout is past', async () => {
    const started = Date.now();
    const exchange = rawExchange(port, 'GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    await exchange.closed;
    expect(exchange.reply()).to.match(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).to.be.at.least(900);
  });

  it('keeps an idle keep-alive connection past the headers timeout: the next request on it is served', async () => {
    const socket = net.connect(port, '127.0.0.1');
    let reply = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (reply += chunk));
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await waitFor(() => /\r\n\r\n\{"status":"ok"\}/.test(reply), { what: 'the first answer' });
    // Idle on purpose (the behaviour under test): longer than the 1 s headers timeout plus Node's 1 s check tick.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(socket.destroyed, 'the idle connection is still open').to.equal(false);
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    // Answers follow each other with no line break between them: count status lines anywhere.
    await waitFor(() => (reply.match(/HTTP\/1\.1 200 /g) ?? []).length === 2, { what: 'the second answer on the same connection' });
    socket.destroy();
  });

  it('cuts a client whose body never finishes with 408 once the request timeout is past', async () => {
    const started = Date.now();
    const head = `POST /v1/link HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Link-Secret: ${connector.config.linkSecret}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n`;
    const exchange = rawExchange(port, `${head}{"subj`);
    await exchange.closed;
    expect(exchange.reply()).to.match(/^HTTP\/1\.1 408 /);
    expect(Date.now() - started).to.be.at.least(1900);
    await waitFor(async () => (await fetch(`${connector.baseUrl}/healthz`)).ok, { what: 'the API to keep serving' });
  });
});
