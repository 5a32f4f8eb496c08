import http from 'node:http';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { createApp } from '../../api/app';
import { createBackend } from '../../shared/adapters/create-backend';
import type { Backend } from '../../shared/domain/backend';
import { createServices } from '../../shared/domain/services';
import { loadConfig } from '../../shared/platform/config/config';
import { listen } from '../../shared/platform/lifecycle/listen';
import { closeServer } from '../../shared/platform/lifecycle/shutdown';
import { createLogger } from '../../shared/platform/logging/logger';
import { Metrics } from '../../shared/platform/metrics/metrics';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { type Call, checkedClient } from '../support/checked-client';
import { newClientAddress } from '../support/client-addresses';
import { BASE_ENV, newSubject } from '../support/harness';
import { postLink } from '../support/link-requests';
import { LogCapture } from '../support/log-capture';

const BUDGET = 3;
const PER_MINUTE = 1;
/** The dashboard's per-address quota: ten times RATE_LIMIT_PER_MINUTE. */
const LINK_QUOTA = PER_MINUTE * 10;

/** What the admission step asked of the stores, by kind of key. */
interface StoreCalls {
  lookups: number;
  failureHits: number;
  addressHits: number;
}

describe('the admission step runs its checks in the documented order and counts failures only', () => {
  let server: http.Server;
  let backend: Backend;
  let call: Call;
  const calls: StoreCalls = { lookups: 0, failureHits: 0, addressHits: 0 };

  before(async () => {
    const config = loadConfig(
      { ...BASE_ENV, AUTH_FAILURES_PER_MINUTE: String(BUDGET), RATE_LIMIT_PER_MINUTE: String(PER_MINUTE), TRUST_PROXY: '1' },
      'dev',
    );
    const metrics = new Metrics({ defaultMetrics: false });
    const logger = createLogger('silent', 'order-test', new LogCapture());
    backend = createBackend({ config, processors: new Map(), metrics, logger });
    // A token's connection is the only store read authentication makes; the windows are the only writes.
    const get = backend.connections.get.bind(backend.connections);
    backend.connections.get = async (id) => {
      calls.lookups++;
      return get(id);
    };
    const hit = backend.rateLimits.hit.bind(backend.rateLimits);
    backend.rateLimits.hit = async (key, windowSeconds) => {
      if (key.startsWith('authfail:')) calls.failureHits++;
      if (key.startsWith('ip:')) calls.addressHits++;
      return hit(key, windowSeconds);
    };
    const { services, tokens } = createServices({ config, backend, metrics });
    server = http.createServer(createApp({ config, backend, services, tokens, metrics, logger }));
    const port = await listen(server, 0);
    ({ call } = await checkedClient(`http://127.0.0.1:${port}`));
  });
  after(async () => {
    await closeServer(server, 0);
    await backend.close(0);
  });

  /** The store calls `request` makes. */
  async function callsOf(request: () => Promise<unknown>): Promise<StoreCalls> {
    const before = { ...calls };
    await request();
    return {
      lookups: calls.lookups - before.lookups,
      failureHits: calls.failureHits - before.failureHits,
      addressHits: calls.addressHits - before.addressHits,
    };
  }

  const me = (address: string, token?: string) => call('GET', '/v1/me', { token, headers: { 'x-forwarded-for': address } });

  it('a forged token is one failure-window hit and no connection look-up: 401 within the budget, 429 past it', async () => {
    const address = newClientAddress();
    const forged = jwt.sign({ sub: 'x', jti: 'conn_x' }, 'not-the-key', { algorithm: 'HS256' });
    const statuses: number[] = [];
    const spent = await callsOf(async () => {
      for (let i = 0; i <= BUDGET; i++) statuses.push((await me(address, forged)).status);
    });
    expect(statuses).to.deep.equal([...Array(BUDGET).fill(401), 429]);
    expect(spent).to.deep.equal({ lookups: 0, failureHits: BUDGET + 1, addressHits: 0 });
  });

  it('once the address has spent its budget, a valid token from it is looked up and answers 200 without touching the budget', async () => {
    const address = newClientAddress();
    const token = (await postLink(call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET, address: newClientAddress() })).body
      .token as string;
    for (let i = 0; i < BUDGET; i++) expect((await me(address, `junk.${i}.token`)).status).to.equal(401);
    let status = 0;
    expect(await callsOf(async () => (status = (await me(address, token)).status))).to.deep.equal({
      lookups: 1,
      failureHits: 0,
      addressHits: 0,
    });
    expect(status).to.equal(200);
  });

  it('missing and expired tokens answer 401 without any store call, even from an address past its budget', async () => {
    const address = newClientAddress();
    for (let i = 0; i <= BUDGET; i++) await me(address, `junk.${i}.token`);
    const expired = jwt.sign({ iat: 1_700_000_000, exp: 1_700_003_600 }, deriveKeys(BASE_ENV.CONNECTOR_SECRET).tokenKey, {
      algorithm: 'HS256',
      issuer: BASE_ENV.PUBLIC_URL,
      audience: BASE_ENV.PUBLIC_URL,
      subject: 'someone@example.com',
      jwtid: 'conn_expired',
    });
    const statuses: number[] = [];
    const spent = await callsOf(async () => {
      statuses.push((await me(address)).status, (await me(address, expired)).status);
    });
    expect(statuses).to.deep.equal([401, 401]);
    expect(spent).to.deep.equal({ lookups: 0, failureHits: 0, addressHits: 0 });
  });

  it('a revoked token is looked up and answers 401 without spending the budget', async () => {
    const address = newClientAddress();
    const linked = await postLink(call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET, address: newClientAddress() });
    const revoked = await call('POST', '/v1/link/revoke', {
      body: { connection_id: linked.body.connection_id },
      headers: { 'x-link-secret': BASE_ENV.LINK_SECRET, 'x-forwarded-for': newClientAddress() },
    });
    expect(revoked.status).to.equal(200);
    const statuses: number[] = [];
    const spent = await callsOf(async () => {
      for (let i = 0; i <= BUDGET; i++) statuses.push((await me(address, linked.body.token)).status);
    });
    expect(statuses).to.deep.equal(Array(BUDGET + 1).fill(401));
    expect(spent).to.deep.equal({ lookups: BUDGET + 1, failureHits: 0, addressHits: 0 });
  });

  it('the dashboard address limit decides before the secret: a wrong secret within it spends the budget, one past it answers 429 without spending it', async () => {
    const address = newClientAddress();
    const within = await callsOf(async () =>
      expect((await postLink(call, { subject: newSubject(), secret: 'wrong', address })).status).to.equal(401),
    );
    expect(within).to.deep.equal({ lookups: 0, failureHits: 1, addressHits: 1 });
    for (let i = 1; i < LINK_QUOTA; i++) await postLink(call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET, address });
    let limited;
    const past = await callsOf(async () => (limited = await postLink(call, { subject: newSubject(), secret: 'wrong', address })));
    expect(limited!.status).to.equal(429);
    expect(limited!.headers.get('ratelimit-policy')).to.equal(`"address";q=${LINK_QUOTA};w=60`);
    expect(past).to.deep.equal({ lookups: 0, failureHits: 0, addressHits: 1 });
  });
});
