import http from 'node:http';
import net from 'node:net';
import { expect } from 'chai';
import { HttpDrain } from '../../shared/platform/lifecycle/http-drain';
import { listen } from '../../shared/platform/lifecycle/listen';

/** A drained server and what its handler holds. */
interface DrainedServer {
  server: http.Server;
  drain: HttpDrain;
  url: string;
  port: number;
  /** Resolves once a `/hang` request has arrived. */
  held: Promise<void>;
  /** The `/wait` requests' responses, unanswered until the test ends them. */
  waiting: http.ServerResponse[];
  /** Resolves once `count` `/wait` requests have arrived. */
  waited(count: number): Promise<void>;
}

/** A server whose handler answers at once, never for `/hang`, and when the test says so for `/wait`. */
async function drainedServer(): Promise<DrainedServer> {
  const server = http.createServer();
  const drain = new HttpDrain(server);
  let hold: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (hold = resolve));
  const waiting: http.ServerResponse[] = [];
  const arrivals: Array<() => void> = [];
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    drain.track(req, res);
    if (req.url === '/hang') hold();
    else if (req.url === '/wait') {
      waiting.push(res);
      for (const arrived of arrivals.splice(0)) arrived();
    } else res.end('ok');
  });
  const waited = async (count: number): Promise<void> => {
    while (waiting.length < count) await new Promise<void>((resolve) => arrivals.push(resolve));
  };
  const port = await listen(server, 0);
  return { server, drain, url: `http://127.0.0.1:${port}`, port, held, waiting, waited };
}

/** Writes `raw` on a new connection and resolves with everything the server sent until it closed. */
function rawExchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    socket.once('close', () => resolve(received));
    socket.once('error', reject);
  });
}

/** One GET through `agent`; resolves with the status and Connection header, or the error code. */
function get(url: string, agent: http.Agent): Promise<{ status?: number; connection?: string; error?: string }> {
  return new Promise((resolve) => {
    http
      .get(url, { agent }, (res) => {
        res.resume();
        res.once('end', () => resolve({ status: res.statusCode, connection: res.headers.connection }));
      })
      .once('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
  });
}

describe('HttpDrain (the API listener stopping)', function () {
  this.timeout(20_000);

  it('a request on an idle keep-alive socket just after the drain began is answered with Connection: close, not reset', async () => {
    const { server, drain, url } = await drainedServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const first = await get(`${url}/`, agent);
    expect(first).to.deep.equal({ status: 200, connection: 'keep-alive' });
    const drained = drain.drain(10_000);
    const second = await get(`${url}/`, agent);
    expect(second).to.deep.equal({ status: 200, connection: 'close' });
    await drained;
    expect(server.listening).to.equal(false);
    agent.destroy();
  });

  it('stop() alone keeps accepting but marks every answer Connection: close and reports stopping', async () => {
    const { drain, url } = await drainedServer();
    const agent = new http.Agent({ keepAlive: true });
    expect(drain.stopping).to.equal(false);
    drain.stop();
    expect(drain.stopping).to.equal(true);
    expect(await get(`${url}/`, agent)).to.deep.equal({ status: 200, connection: 'close' });
    await drain.drain(10_000);
    agent.destroy();
  });

  it('a request in flight when stop() is called is answered with Connection: close', async () => {
    const { drain, url, waiting, waited } = await drainedServer();
    const agent = new http.Agent({ keepAlive: true });
    const answer = get(`${url}/wait`, agent);
    await waited(1);
    drain.stop();
    waiting[0]!.end('late');
    expect(await answer).to.deep.equal({ status: 200, connection: 'close' });
    await drain.drain(10_000);
    agent.destroy();
  });

  it('two pipelined requests in flight when stop() is called both get Connection: close, and the socket closes after the first', async () => {
    const { drain, port, waiting, waited } = await drainedServer();
    const request = 'GET /wait HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const exchange = rawExchange(port, request + request);
    await waited(2);
    drain.stop();
    expect(waiting.map((res) => res.getHeader('connection'))).to.deep.equal(['close', 'close']);
    for (const res of waiting) res.end('late');
    const received = await exchange;
    expect(received.match(/^HTTP\/1\.1 200/gm)).to.have.length(1);
    expect(received).to.match(/^Connection: close\r$/im);
    await drain.drain(10_000);
  });

  it('an idle keep-alive socket left alone is closed after the linger, and the drain then resolves', async () => {
    const { drain, url } = await drainedServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    expect((await get(`${url}/`, agent)).status).to.equal(200);
    const [socket] = Object.values(agent.freeSockets).flat();
    expect(socket, 'a pooled keep-alive socket').to.not.equal(undefined);
    const closed = new Promise<void>((resolve) => socket!.once('close', () => resolve()));
    await drain.drain(10_000);
    await closed;
    agent.destroy();
  });

  it('a request still unanswered when the grace is over is cut, and the drain resolves', async () => {
    const { drain, url, held } = await drainedServer();
    const agent = new http.Agent({ keepAlive: true });
    const hanging = get(`${url}/hang`, agent);
    await held;
    await drain.drain(200);
    expect((await hanging).error).to.be.oneOf(['ECONNRESET', 'socket hang up']);
    agent.destroy();
  });
});
