import http from 'node:http';
import { expect } from 'chai';
import { listen } from '../../../../../shared/platform/lifecycle/listen';
import { closeServer } from '../../../../../shared/platform/lifecycle/shutdown';

describe('closeServer', () => {
  const agents: http.Agent[] = [];
  afterEach(() => {
    for (const agent of agents.splice(0)) agent.destroy();
  });

  /** A GET through a keep-alive agent; resolves with the status once the answer is read. */
  function get(port: number): Promise<number> {
    const agent = new http.Agent({ keepAlive: true });
    agents.push(agent);
    return new Promise((resolve, reject) => {
      http
        .get({ port, host: '127.0.0.1', agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        })
        .on('error', reject);
    });
  }

  it('a server that is not listening: resolves at once', async () => {
    await closeServer(http.createServer(), 60_000);
  });

  it('an idle keep-alive connection does not hold the drain open: resolves long before the grace', async () => {
    const server = http.createServer((_req, res) => res.end('ok'));
    // Longer than the grace and the bound below, so only closing the idle socket can end the drain in time.
    server.keepAliveTimeout = 120_000;
    const port = await listen(server, 0, '127.0.0.1');
    expect(await get(port)).to.equal(200);
    const started = Date.now();
    await closeServer(server, 60_000);
    expect(server.listening).to.equal(false);
    expect(Date.now() - started).to.be.lessThan(5_000);
  });

  it('a request still in flight at the end of the grace: its connection is cut and the close resolves', async () => {
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = http.createServer(() => arrived());
    const port = await listen(server, 0, '127.0.0.1');
    const answer = get(port).then(
      () => 'answered',
      (error: NodeJS.ErrnoException) => error.code,
    );
    await inFlight;
    await closeServer(server, 50);
    expect(await answer).to.equal('ECONNRESET');
  });
});
