import { expect } from 'chai';
import { BACKENDS, type BackendKind } from '../support/backends';
import { BASE_ENV, newSubject } from '../support/harness';
import { keepAliveLoad, serverErrors } from '../support/keep-alive-load';
import { measurement } from '../support/measurement';
import { type ApiUnderTest, redisEnv, startApiProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { waitFor } from '../testkit/wait-for';

const GRACE_MS = 10_000;
const CONNECTIONS = 30;

/** Both backends with no delay (the drain itself), and Redis with a delay (as in the chart) under the same load. */
const CASES: Array<{ kind: BackendKind; delayMs: number }> = [
  ...BACKENDS.map((kind) => ({ kind, delayMs: 0 })),
  { kind: 'redis', delayMs: 1000 },
];

for (const { kind, delayMs } of CASES) {
  describe(`SIGTERM to the built API under ${CONNECTIONS} keep-alive connections (${kind} backend, SHUTDOWN_DELAY_MS=${delayMs})`, function () {
    this.timeout(60_000);
    let redis: TestRedis | undefined;
    let api: ApiUnderTest;

    before(async () => {
      redis = kind === 'redis' ? await startRedis() : undefined;
      const env = redis ? redisEnv(redis.url, 'drain:') : { ...BASE_ENV };
      api = await startApiProcess({ ...env, SHUTDOWN_GRACE_MS: String(GRACE_MS), SHUTDOWN_DELAY_MS: String(delayMs) });
      await waitFor(() => api.call('GET', '/readyz').then((r) => r.status === 200), { what: 'the API to be ready' });
    });
    after(async () => {
      await api?.kill();
      await redis?.stop();
    });

    it('answers every request (no reset, no 5xx), moves each client off with Connection: close, and exits 0 well inside the grace', async () => {
      const { token } = await api.link(newSubject());
      const load = keepAliveLoad(`${api.baseUrl}/v1/me`, {
        connections: CONNECTIONS,
        headers: { authorization: `Bearer ${token}` },
        maxRequests: 100_000,
        maxMs: 40_000,
      });
      await waitFor(() => load.outcome.total >= 20 * CONNECTIONS, { timeoutMs: 20_000, what: 'the load to run' });
      const signalledAt = Date.now();
      const code = await api.stop();
      const exitMs = Date.now() - signalledAt;
      const outcome = await load.finished;
      measurement(`      ${outcome.total} requests, ${outcome.closes} moved off by Connection: close, exit ${exitMs} ms after SIGTERM`);
      expect(outcome.errors, 'requests that failed without an answer').to.deep.equal({});
      expect(serverErrors(outcome), '5xx answers').to.equal(0);
      expect(Object.keys(outcome.statuses)).to.deep.equal(['200']);
      expect(outcome.closes, 'clients told to move off').to.equal(CONNECTIONS);
      expect(code).to.equal(0);
      expect(exitMs, 'exit time').to.be.at.least(delayMs);
      expect(exitMs, 'exit time').to.be.below(delayMs + GRACE_MS);
      const lines = api.logLines().map((line) => line.msg);
      expect(lines.indexOf('last response sent; draining jobs, then closing the backend')).to.be.greaterThan(
        lines.indexOf('shutting down'),
      );
    });
  });
}

describe('SIGTERM to the built API with SHUTDOWN_DELAY_MS', function () {
  this.timeout(60_000);
  const DELAY_MS = 4000;
  let api: ApiUnderTest;

  before(async () => {
    api = await startApiProcess({ ...BASE_ENV, SHUTDOWN_GRACE_MS: String(GRACE_MS), SHUTDOWN_DELAY_MS: String(DELAY_MS) });
  });
  after(async () => {
    await api?.kill();
  });

  it('turns /readyz 503 at once, keeps serving new connections (with Connection: close) through the delay, then exits 0', async () => {
    const { token } = await api.link(newSubject());
    expect((await api.call('GET', '/readyz')).status).to.equal(200);
    const signalledAt = Date.now();
    const exited = api.stop();
    const notReady = await waitFor(
      async () => {
        const res = await api.call('GET', '/readyz');
        return res.status === 503 ? res : undefined;
      },
      { what: '/readyz to answer 503' },
    );
    expect(notReady.headers.get('content-type')).to.match(/^application\/problem\+json/);
    const me = await api.call('GET', '/v1/me', { token });
    const servedAt = Date.now();
    expect(me.status, me.text).to.equal(200);
    expect(me.headers.get('connection')).to.equal('close');
    expect(await exited).to.equal(0);
    const exitMs = Date.now() - signalledAt;
    // Served inside the delay: the process was still there, and it left only after the delay was over.
    expect(servedAt - signalledAt).to.be.below(exitMs);
    expect(exitMs).to.be.at.least(DELAY_MS);
    expect(exitMs).to.be.below(DELAY_MS + GRACE_MS);
  });
});
