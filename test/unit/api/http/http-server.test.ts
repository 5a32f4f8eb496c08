import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express from 'express';
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

  /** Serves a small app on `api` and answers one request; what the listener saw of its objects' prototypes. */
  async function servedPrototypes(api: ReturnType<typeof createApiServer>): Promise<boolean[]> {
    const app = express();
    app.get('/answer', (req, res) => {
      res.json({ path: req.path });
    });
    const seen: boolean[] = [];
    api.serve(app, (req, res) => {
      seen.push(
        Object.getPrototypeOf(req) === app.request,
        Object.getPrototypeOf(res) === app.response,
        req instanceof http.IncomingMessage,
      );
      app(req, res);
    });
    await new Promise<void>((resolve) => api.server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = api.server.address() as AddressInfo;
      const answer = await fetch(`http://127.0.0.1:${port}/answer`);
      expect([answer.status, await answer.json()]).to.deep.equal([200, { path: '/answer' }]);
      return seen;
    } finally {
      api.server.closeAllConnections();
      await new Promise((resolve) => api.server.close(resolve));
    }
  }

  it("born with the app's prototypes: requests and responses have them before Express, and the app answers through them", async () => {
    expect(await servedPrototypes(createApiServer(LIMITS, { bornWithAppPrototypes: true }))).to.deep.equal([true, true, true]);
  });

  it("not born with them: Node's own objects reach the app, which still answers", async () => {
    expect(await servedPrototypes(createApiServer(LIMITS, { bornWithAppPrototypes: false }))).to.deep.equal([false, false, true]);
  });

  it('by default born with them from Node 26 on (where it was measured cheaper), not on older Nodes', async () => {
    const born = Number(process.versions.node.split('.')[0]) >= 26;
    expect(await servedPrototypes(createApiServer(LIMITS))).to.deep.equal([born, born, true]);
  });
});
