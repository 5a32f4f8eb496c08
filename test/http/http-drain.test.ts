import http from 'node:http';
import { expect } from 'chai';
import { HttpDrain } from '../../shared/platform/lifecycle/http-drain';
import { listen } from '../../shared/platform/lifecycle/listen';

/** A server whose handler answers at once, or never for `/hang`. */
async function drainedServer(): Promise<{ server: http.Server; drain: HttpDrain; url: string; held: Promise<void> }> {
  const server = http.createServer();
  const drain = new HttpDrain(server);
  let hold: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (hold = resolve));
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    drain.track(req, res);
    if (req.url === '/hang') hold();
    else res.end('ok');
  });
  const port = await listen(server, 0);
  return { server, drain, url: `http://127.0.0.1:${port}`, held };
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
