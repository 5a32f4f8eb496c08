import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { listen } from '../../../../../shared/platform/lifecycle/listen';

describe('listen', () => {
  const servers: http.Server[] = [];
  const server = () => {
    const created = http.createServer();
    servers.push(created);
    return created;
  };
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => (s.listening ? s.close(resolve) : resolve(undefined)))));
  });

  it('port 0 on a host: resolves with the free port it bound, on that host', async () => {
    const started = server();
    const port = await listen(started, 0, '127.0.0.1');
    expect(port).to.be.greaterThan(0);
    expect((started.address() as AddressInfo).address).to.equal('127.0.0.1');
    expect((started.address() as AddressInfo).port).to.equal(port);
  });

  it('a port already taken: rejects with the bind error, leaving no error listener behind', async () => {
    const port = await listen(server(), 0, '127.0.0.1');
    const second = server();
    const refusal = await listen(second, port, '127.0.0.1').then(
      () => undefined,
      (error: NodeJS.ErrnoException) => error.code,
    );
    expect(refusal).to.equal('EADDRINUSE');
    expect(second.listeners('error')).to.have.length(0);
  });

  it('once bound: its error listener is removed, so a later error is not taken for a failed start', async () => {
    const started = server();
    await listen(started, 0, '127.0.0.1');
    expect(started.listeners('error')).to.have.length(0);
  });
});
