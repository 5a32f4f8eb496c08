import type http from 'node:http';
import { expect } from 'chai';
import { listen } from '../../../../../shared/platform/lifecycle/listen';
import { Metrics } from '../../../../../shared/platform/metrics/metrics';
import { createMetricsServer } from '../../../../../shared/platform/metrics/metrics-server';

describe('createMetricsServer', () => {
  let server: http.Server | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server?.listening ? server.close(resolve) : resolve(undefined)));
    server = undefined;
  });

  /** Starts a metrics server and answers `fetch` against it. */
  async function start(ready?: () => Promise<boolean>, metrics = new Metrics({ defaultMetrics: false })) {
    server = createMetricsServer(metrics, ready);
    const port = await listen(server, 0, '127.0.0.1');
    return (path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${port}${path}`, init);
  }

  it("GET /metrics: the registry's text in Prometheus format, never cached", async () => {
    const metrics = new Metrics({ defaultMetrics: false });
    metrics.tokensIssued.inc();
    const res = await (await start(undefined, metrics))('/metrics?x=1');
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.contain('text/plain');
    expect(res.headers.get('cache-control')).to.equal('no-store');
    expect(await res.text()).to.contain('connector_tokens_issued_total 1');
  });

  it('without a readiness check: /healthz and /readyz are 404, as is any other path', async () => {
    const get = await start();
    for (const path of ['/healthz', '/readyz', '/constructor', '/']) expect((await get(path)).status, path).to.equal(404);
  });

  it('with a readiness check: /healthz 200; /readyz 200 when ready, 503 when not or when the check throws', async () => {
    let answer: () => Promise<boolean> = async () => true;
    const get = await start(() => answer());
    expect(await (await get('/healthz')).json()).to.deep.equal({ status: 'ok' });
    expect((await get('/readyz')).status).to.equal(200);
    answer = async () => false;
    expect((await get('/readyz')).status).to.equal(503);
    answer = () => Promise.reject(new Error('redis down'));
    const failing = await get('/readyz');
    expect([failing.status, await failing.json()]).to.deep.equal([503, { status: 'unavailable' }]);
  });

  it('another method: 405 with Allow: GET', async () => {
    const res = await (await start())('/metrics', { method: 'POST' });
    expect([res.status, res.headers.get('allow')]).to.deep.equal([405, 'GET']);
  });
});
