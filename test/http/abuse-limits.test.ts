import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { BACKENDS } from '../support/backends';
import { newClientAddress } from '../support/client-addresses';
import { BASE_ENV, type CallOptions, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { linkedToken, postLink } from '../support/link-requests';
import { postToolsListFrom } from '../support/mcp-client';
import { scrape, sumOf } from '../support/prometheus-text';

const PER_MINUTE = 3;
const FAILURE_BUDGET = 20;
const PROBLEM = /^application\/problem\+json/;

/** Parses one member of a RateLimit / RateLimit-Policy list: `"name";k=v;k=v`. */
function member(header: string | null, name: string): Record<string, number> | undefined {
  for (const item of (header ?? '').split(',').map((s) => s.trim())) {
    const [quoted, ...params] = item.split(';');
    if (quoted !== `"${name}"`) continue;
    return Object.fromEntries(params.map((p) => p.split('=')).map(([k, v]) => [k, Number(v)]));
  }
  return undefined;
}

for (const backend of BACKENDS) {
  describe(`rate-limit headers and the failed-authentication budget [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, {
        RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
        AUTH_FAILURES_PER_MINUTE: String(FAILURE_BUDGET),
        TRUST_PROXY: '1',
      });
    });
    after(async () => c.close());

    const from = (address: string, options: CallOptions = {}): CallOptions => ({
      ...options,
      headers: { ...options.headers, 'x-forwarded-for': address },
    });
    const tokenFor = (address: string) => linkedToken(c.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET, address });

    it('an allowed call carries RateLimit-Policy and RateLimit for its policy, and no legacy RateLimit-* fields', async () => {
      const address = newClientAddress();
      const linked = await postLink(c.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET, address });
      expect(member(linked.headers.get('ratelimit-policy'), 'address')).to.deep.equal({ q: PER_MINUTE * 10, w: 60 });
      expect(member(linked.headers.get('ratelimit'), 'address')).to.include({ r: PER_MINUTE * 10 - 1 });
      const me = await c.call('GET', '/v1/me', from(address, { token: linked.body.token }));
      expect(me.status).to.equal(200);
      expect(member(me.headers.get('ratelimit-policy'), 'subject')).to.deep.equal({ q: PER_MINUTE, w: 60 });
      const state = member(me.headers.get('ratelimit'), 'subject')!;
      expect(state.r).to.equal(PER_MINUTE - 1);
      expect(state.t).to.be.within(1, 60);
      for (const legacy of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) expect(me.headers.get(legacy)).to.equal(null);
    });

    it('the call past the per-subject quota answers 429 problem+json with Retry-After equal to RateLimit t and r=0', async () => {
      const token = await tokenFor(newClientAddress());
      const statuses: number[] = [];
      let last;
      for (let i = 0; i <= PER_MINUTE; i++) {
        last = await c.call('GET', '/v1/me', { token });
        statuses.push(last.status);
      }
      expect(statuses).to.deep.equal([...Array(PER_MINUTE).fill(200), 429]);
      expect(last!.headers.get('content-type')).to.match(PROBLEM);
      const state = member(last!.headers.get('ratelimit'), 'subject')!;
      expect(state.r).to.equal(0);
      expect(Number(last!.headers.get('retry-after'))).to.equal(state.t);
    });

    it(`${FAILURE_BUDGET} wrong link secrets from one address answer 401, the next wrong one 429; the right secret from that address still links`, async () => {
      const guesser = newClientAddress();
      const before = await scrape(c.metricsUrl);
      for (let i = 0; i < FAILURE_BUDGET; i++) {
        const res = await postLink(c.call, { subject: newSubject(), secret: `wrong-${i}`, address: guesser });
        expect(res.status, `guess ${i + 1}`).to.equal(401);
        expect(member(res.headers.get('ratelimit'), 'auth-failures')).to.include({ r: FAILURE_BUDGET - i - 1 });
      }
      const refused = await postLink(c.call, { subject: newSubject(), secret: 'wrong-again', address: guesser });
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('content-type')).to.match(PROBLEM);
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
      expect(member(refused.headers.get('ratelimit-policy'), 'auth-failures')).to.deep.equal({ q: FAILURE_BUDGET, w: 60 });
      expect(member(refused.headers.get('ratelimit'), 'auth-failures')).to.include({ r: 0 });
      const right = await postLink(c.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET, address: guesser });
      expect(right.status, 'the right secret from the guessing address').to.equal(201);
      expect(member(right.headers.get('ratelimit'), 'auth-failures'), 'an admitted request spends nothing').to.equal(undefined);
      const after = await scrape(c.metricsUrl);
      const delta = (reason: string) =>
        sumOf(after, 'connector_auth_failures_total', { reason }) - sumOf(before, 'connector_auth_failures_total', { reason });
      expect(delta('bad_link_secret')).to.equal(FAILURE_BUDGET);
      expect(delta('too_many_failures')).to.equal(1);
    });

    it(`${FAILURE_BUDGET + 5} junk bearer tokens from one address answer ${FAILURE_BUDGET} × 401 then 429; another person's valid token from that address answers 200`, async () => {
      const shared = newClientAddress();
      const token = await tokenFor(newClientAddress());
      const forged = jwt.sign({ sub: 'someone' }, 'not-the-key', {
        algorithm: 'HS256',
        issuer: BASE_ENV.PUBLIC_URL,
        audience: BASE_ENV.PUBLIC_URL,
      });
      const statuses: number[] = [];
      for (let i = 0; i < FAILURE_BUDGET + 5; i++)
        statuses.push((await c.call('GET', '/v1/me', from(shared, { token: i % 2 ? forged : `garbage.${i}.token` }))).status);
      expect(statuses).to.deep.equal([...Array(FAILURE_BUDGET).fill(401), ...Array(5).fill(429)]);
      const valid = await c.call('GET', '/v1/me', from(shared, { token }));
      expect(valid.status, 'a valid token from the junk-sending address').to.equal(200);
      expect(member(valid.headers.get('ratelimit-policy'), 'subject')).to.deep.equal({ q: PER_MINUTE, w: 60 });
      expect(member(valid.headers.get('ratelimit'), 'auth-failures'), 'an admitted request spends nothing').to.equal(undefined);
    });

    it(`${FAILURE_BUDGET + 5} junk tokens on POST /mcp spend the address's budget (401 then 429); a valid token from that address answers 200 on /mcp and on /v1/me`, async () => {
      const shared = newClientAddress();
      const token = await tokenFor(newClientAddress());
      const mcp = (bearer: string, address: string) => postToolsListFrom(c.baseUrl, bearer, address);
      const statuses: number[] = [];
      for (let i = 0; i < FAILURE_BUDGET + 5; i++) statuses.push((await mcp(`forged.${i}.token`, shared)).status);
      expect(statuses).to.deep.equal([...Array(FAILURE_BUDGET).fill(401), ...Array(5).fill(429)]);
      const limited = await mcp('forged.again.token', shared);
      expect(limited.headers.get('content-type')).to.match(PROBLEM);
      expect(member(limited.headers.get('ratelimit'), 'auth-failures')).to.include({ r: 0 });
      expect((await mcp(token, shared)).status, 'a valid token on /mcp from the junk-sending address').to.equal(200);
      expect((await c.call('GET', '/v1/me', from(shared, { token }))).status, 'REST from the junk-sending address').to.equal(200);
    });

    it('missing, expired and revoked tokens answer 401 without spending the budget', async () => {
      const address = newClientAddress();
      const subject = newSubject();
      const linked = await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET, address });
      const revoked = (await postLink(c.call, { subject, secret: BASE_ENV.LINK_SECRET, address: newClientAddress() })).body.token as string;
      await c.call(
        'POST',
        '/v1/link/revoke',
        from(newClientAddress(), {
          body: { connection_id: jwt.decode(revoked, { json: true })!.jti },
          headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
        }),
      );
      const issued = jwt.decode(linked.body.token, { json: true })!;
      const expired = jwt.sign({ iat: issued.iat! - 7200, exp: issued.iat! - 3600 }, deriveKeys(BASE_ENV.CONNECTOR_SECRET).tokenKey, {
        algorithm: 'HS256',
        issuer: BASE_ENV.PUBLIC_URL,
        audience: BASE_ENV.PUBLIC_URL,
        subject,
        jwtid: issued.jti,
      });
      for (let i = 0; i < FAILURE_BUDGET + 5; i++) {
        expect((await c.call('GET', '/v1/me', from(address))).status).to.equal(401);
        expect((await c.call('GET', '/v1/me', from(address, { token: expired }))).status).to.equal(401);
        expect((await c.call('GET', '/v1/me', from(address, { token: revoked }))).status).to.equal(401);
      }
      const me = await c.call('GET', '/v1/me', from(address, { token: linked.body.token }));
      expect(me.status).to.equal(200);
      expect(me.headers.get('ratelimit')).to.not.include('auth-failures');
    });
  });

  describe(`the failed-authentication budget without a trusted proxy [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { AUTH_FAILURES_PER_MINUTE: '5', TRUST_PROXY: '0' });
    });
    after(async () => c.close());

    it('X-Forwarded-For is ignored: changing it does not escape the budget of the socket address', async () => {
      const send = (secret: string) =>
        c.call('POST', '/v1/link', {
          body: { subject: newSubject() },
          headers: { 'x-link-secret': secret, 'x-forwarded-for': newClientAddress() },
        });
      for (let i = 0; i < 5; i++) expect((await send('wrong')).status).to.equal(401);
      expect((await send('wrong')).status).to.equal(429);
      expect((await send(BASE_ENV.LINK_SECRET)).status, 'the right secret is still admitted').to.equal(201);
    });
  });
}
