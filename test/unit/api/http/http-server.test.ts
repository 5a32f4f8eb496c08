import { expect } from 'chai';
import { createApiServer } from '../../../../api/http/http-server';

const LIMITS = { keepAliveTimeoutMs: 75_000, headersTimeoutMs: 20_000, requestTimeoutMs: 30_000, maxHeaderBytes: 16_384 };

describe('createApiServer', () => {
  it("the configured limits are the Node server's own: timeouts, keep-alive and header size", () => {
    const { server } = createApiServer(LIMITS);
    expect([
      server.keepAliveTimeout,
      server.headersTimeout,
      server.requestTimeout,
      (server as unknown as { maxHeaderSize: number }).maxHeaderSize,
    ]).to.deep.equal([75_000, 20_000, 30_000, 16_384]);
  });

  it('parser errors are answered by the app (a clientError listener) and the drain sees every request first', () => {
    const { server, drain } = createApiServer(LIMITS);
    expect(server.listenerCount('clientError')).to.equal(1);
    expect(server.listenerCount('request')).to.equal(1);
    expect(drain).to.not.equal(undefined);
  });
});
