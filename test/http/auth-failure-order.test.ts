import http from 'node:http';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { createApp } from '../../api/app';
import { loadConfig } from '../../shared/platform/config/config';
import { listen } from '../../shared/platform/lifecycle/listen';
import { closeServer } from '../../shared/platform/lifecycle/shutdown';
import { createLogger } from '../../shared/platform/logging/logger';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { createServices } from '../../shared/domain/services';
import type { Backend } from '../../shared/domain/backend';
import { createBackend } from '../../shared/adapters/create-backend';
import { checkedClient, type Call } from '../support/checked-client';
import { BASE_ENV, newSubject } from '../support/harness';
import { LogCapture } from '../support/log-capture';

const BUDGET = 3;

describe('the failed-authentication budget is checked before any store lookup of the credential', () => {
  let server: http.Server;
  let backend: Backend;
  let call: Call;
  let lookups = 0;

  before(async () => {
    const config = loadConfig({ ...BASE_ENV, AUTH_FAILURES_PER_MINUTE: String(BUDGET) }, 'dev');
    const metrics = new Metrics({ defaultMetrics: false });
    const logger = createLogger('silent', 'order-test', new LogCapture());
    backend = createBackend(config, new Map(), metrics, logger);
    // Count every look-up of a token's connection: the only store read that authentication makes.
    const get = backend.connections.get.bind(backend.connections);
    backend.connections.get = async (id) => {
      lookups++;
      return get(id);
    };
    const { services, tokens } = createServices(config, backend, metrics);
    server = http.createServer(createApp({ config, backend, services, tokens, metrics, logger }));
    const port = await listen(server, 0);
    ({ call } = await checkedClient(`http://127.0.0.1:${port}`));
  });
  after(async () => {
    await closeServer(server, 0);
    await backend.close(0);
  });

  it('once the address has spent its budget, a valid token answers 429 without its connection being looked up', async () => {
    const linked = await call('POST', '/v1/link', { body: { subject: newSubject() }, headers: { 'x-link-secret': BASE_ENV.LINK_SECRET } });
    expect((await call('GET', '/v1/me', { token: linked.body.token })).status).to.equal(200);
    expect(lookups, 'a valid token is looked up').to.equal(1);
    const forged = jwt.sign({ sub: 'x', jti: 'conn_x' }, 'not-the-key', { algorithm: 'HS256' });
    for (let i = 0; i < BUDGET; i++) expect((await call('GET', '/v1/me', { token: forged })).status).to.equal(401);
    const before = lookups;
    expect((await call('GET', '/v1/me', { token: linked.body.token })).status).to.equal(429);
    expect(lookups, 'no look-up once the budget is spent').to.equal(before);
  });
});
