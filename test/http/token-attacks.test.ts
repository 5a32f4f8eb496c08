import { expect } from 'chai';
import { deriveKeys } from '../../shared/platform/secrets/derived-keys';
import { BACKENDS } from '../support/backends';
import {
  freshClaims,
  hmacToken,
  nowSeconds,
  rs256Token,
  rsaKeys,
  type TokenClaims,
  tamperedToken,
  unsignedToken,
} from '../support/forged-tokens';
import { BASE_ENV, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { RawClient } from '../support/raw-client';

const HS256 = { alg: 'HS256', typ: 'JWT' };
const OTHER_URL = 'https://elsewhere.example.com';

/** What an attacker has to work with: a genuine token and its claims, and tokens other connectors minted. */
interface Material {
  token: string;
  claims: TokenClaims;
  revoked: string;
  otherPublicUrl: string;
  otherSecret: string;
}

/** Without the Authorization header the challenge has no error code; every other refusal says invalid_token. */
type Attack = [name: string, authorization: (m: Material) => string | undefined];

const key = deriveKeys(BASE_ENV.CONNECTOR_SECRET).tokenKey;
const sign = (m: Material, change: Partial<TokenClaims> & Record<string, unknown> = {}) =>
  hmacToken(HS256, { ...m.claims, ...change }, key);
const bearer = (token: string) => `Bearer ${token}`;
const without = (m: Material, ...names: string[]) => Object.fromEntries(Object.entries(m.claims).filter(([name]) => !names.includes(name)));

/*
 * One table of attacks on bearer tokens. Each must answer 401 with a `Bearer` challenge and the very same
 * problem body: the body compared is the whole problem minus `request_id`, which differs per request by
 * design. A caller learns nothing about why a token was refused (the reason only goes to the metrics).
 */
const ATTACKS: Attack[] = [
  ['no Authorization header', () => undefined],
  ['a value that is not a JWT', () => 'Bearer not a jwt at all'],
  ['another scheme', (m) => `Basic ${Buffer.from(`x:${m.token}`).toString('base64')}`],
  ['alg none', (m) => bearer(unsignedToken(m.claims))],
  ['alg None', (m) => bearer(unsignedToken(m.claims, 'None'))],
  ['alg NONE', (m) => bearer(unsignedToken(m.claims, 'NONE'))],
  ['alg none with the genuine signature kept', (m) => bearer(`${unsignedToken(m.claims).slice(0, -1)}.${m.token.split('.')[2]}`)],
  ['the signature stripped', (m) => bearer(`${m.token.split('.').slice(0, 2).join('.')}.`)],
  ['HS256 keyed with an RSA public key PEM (HS/RS confusion)', (m) => bearer(hmacToken(HS256, m.claims, rsaKeys().publicPem))],
  ['RS256 signed by a stranger’s private key', (m) => bearer(rs256Token(m.claims))],
  ['HS512 by the real key (algorithm not pinned)', (m) => bearer(hmacToken({ alg: 'HS512', typ: 'JWT' }, m.claims, key))],
  ['signed with the raw CONNECTOR_SECRET instead of the derived key', (m) => bearer(hmacToken(HS256, m.claims, BASE_ENV.CONNECTOR_SECRET))],
  ['signed with the LINK_SECRET', (m) => bearer(hmacToken(HS256, m.claims, BASE_ENV.LINK_SECRET))],
  ['a wrong issuer', (m) => bearer(sign(m, { iss: OTHER_URL }))],
  ['a wrong audience', (m) => bearer(sign(m, { aud: OTHER_URL }))],
  ['no issuer and no audience', (m) => bearer(hmacToken(HS256, without(m, 'iss', 'aud'), key))],
  ['expired', (m) => bearer(sign(m, { exp: nowSeconds() - 5 }))],
  ['nbf in the future', (m) => bearer(sign(m, { nbf: nowSeconds() + 3600 }))],
  ['no subject', (m) => bearer(hmacToken(HS256, without(m, 'sub'), key))],
  ['no connection id', (m) => bearer(hmacToken(HS256, without(m, 'jti'), key))],
  [
    'the payload tampered (another subject) under the original signature',
    (m) => bearer(tamperedToken(m.token, (c) => ({ ...c, sub: 'victim@example.com' }))),
  ],
  [
    'the expiry tampered (extended) under the original signature',
    (m) => bearer(tamperedToken(m.token, (c) => ({ ...c, exp: Number(c.exp) + 86_400 }))),
  ],
  [
    'the header tampered (alg HS384) under the original signature',
    (m) =>
      bearer(`${Buffer.from(JSON.stringify({ alg: 'HS384', typ: 'JWT' })).toString('base64url')}.${m.token.split('.').slice(1).join('.')}`),
  ],
  ['a genuine signature on a connection that was never made', (m) => bearer(sign(m, { jti: 'conn_forged' }))],
  ['a genuine signature with a subject other than its connection’s', (m) => bearer(sign(m, { sub: 'someone-else@example.com' }))],
  ['oversized (8 KiB: over the token limit, under the header limit)', (m) => bearer(`${m.token}${'A'.repeat(8 * 1024)}`)],
  ['a revoked connection', (m) => bearer(m.revoked)],
  ['minted by a connector with another PUBLIC_URL and the same secret', (m) => bearer(m.otherPublicUrl)],
  ['minted by a connector with another CONNECTOR_SECRET', (m) => bearer(m.otherSecret)],
];

/** Links a subject on a throwaway memory connector with `overrides`, and returns the token it minted. */
async function tokenFrom(overrides: Record<string, string>): Promise<string> {
  const other = await startConnector('memory', overrides);
  try {
    return await other.link(newSubject());
  } finally {
    await other.close();
  }
}

for (const backend of BACKENDS) {
  describe(`token attacks [${backend}]`, () => {
    let c: ConnectorUnderTest;
    let m: Material;
    let reference: Record<string, unknown>;
    before(async () => {
      c = await startConnector(backend);
      const subject = newSubject();
      const linked = await c.call('POST', '/v1/link', { body: { subject }, headers: { 'x-link-secret': BASE_ENV.LINK_SECRET } });
      const revoked = await c.link(subject);
      await c.call('POST', '/v1/link/revoke', {
        body: { connection_id: JSON.parse(Buffer.from(revoked.split('.')[1], 'base64url').toString()).jti },
        headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
      });
      m = {
        token: linked.body.token,
        claims: freshClaims(BASE_ENV.PUBLIC_URL, subject, linked.body.connection_id),
        revoked,
        otherPublicUrl: await tokenFrom({ PUBLIC_URL: OTHER_URL }),
        otherSecret: await tokenFrom({ CONNECTOR_SECRET: 'a-completely-different-secret-of-more-than-32-chars' }),
      };
      const missing = await c.call('GET', '/v1/me');
      reference = { ...missing.body, request_id: undefined };
    });
    after(async () => c.close());

    it('the genuine token, and a token signed exactly as the connector signs, are accepted (the table’s baseline)', async () => {
      expect((await c.call('GET', '/v1/me', { token: m.token })).status).to.equal(200);
      expect((await c.call('GET', '/v1/me', { token: sign(m) })).status).to.equal(200);
    });

    for (const [name, authorization] of ATTACKS) {
      it(`${name}: 401, a Bearer challenge and the one identical problem body`, async () => {
        const value = authorization(m);
        const res = await c.call('GET', '/v1/me', { headers: value === undefined ? {} : { authorization: value } });
        expect(res.status).to.equal(401);
        expect(res.headers.get('www-authenticate')).to.equal(
          value === undefined ? 'Bearer realm="connector"' : 'Bearer realm="connector", error="invalid_token"',
        );
        expect({ ...res.body, request_id: undefined }).to.deep.equal(reference);
        expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
        if (value) expect(res.text).to.not.contain(value.replace(/^\S+ /, '').slice(0, 40));
      });
    }

    it('a 64 KiB token is refused before it is read: 431 problem+json (over the HTTP header limit, so not a 401)', async () => {
      const raw = new RawClient(c.baseUrl);
      try {
        const res = await raw.send({
          method: 'GET',
          path: '/v1/me',
          headers: { authorization: bearer(`${m.token}${'A'.repeat(64 * 1024)}`) },
        });
        expect(res.status).to.equal(431);
        expect(res.headers.get('content-type')).to.match(/^application\/problem\+json/);
        expect(JSON.parse(res.text)).to.include({ status: 431, title: 'Request header fields too large' });
        expect(res.text).to.not.contain(m.token.slice(0, 40));
      } finally {
        raw.close();
      }
    });
  });
}
