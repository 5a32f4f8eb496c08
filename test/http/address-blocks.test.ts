import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { BASE_ENV, type ConnectorUnderTest, newSubject, startConnector } from '../support/harness';
import { postLink } from '../support/link-requests';
import { addLoopbackAddresses, removeLoopbackAddresses, requestFrom } from '../support/local-addresses';

const BUDGET = 5;
const PER_MINUTE = 2;
/** The dashboard's per-address quota: 10× RATE_LIMIT_PER_MINUTE. */
const LINK_QUOTA = PER_MINUTE * 10;

/** A fresh /64 of the documentation prefix (RFC 3849), so the cases never share a budget: `2001:db8:x:y`. */
const newNetwork = (): string => `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}`;

/** `count` different addresses of one /64, each spelled another way (compressed, expanded, upper case). */
function addressesOf(network: string, count: number): string[] {
  const spellings = [
    (i: number) => `${network}::${(i + 1).toString(16)}`,
    (i: number) => `${network}:${randomBytes(2).toString('hex')}:0:0:${(i + 1).toString(16)}`,
    (i: number) => `${network}:FFFF:${(i + 1).toString(16).toUpperCase()}::1`,
  ];
  return Array.from({ length: count }, (_, i) => spellings[i % spellings.length]!(i));
}

/** The /64 right after `network`. */
function nextNetwork(network: string): string {
  const groups = network.split(':');
  groups[3] = ((Number.parseInt(groups[3]!, 16) + 1) & 0xffff).toString(16);
  return groups.join(':');
}

/** Two neighbouring documentation-range IPv4 addresses (RFC 5737). */
function ipv4Pair(): [string, string] {
  const last = 1 + (randomBytes(1)[0]! % 253);
  return [`198.51.100.${last}`, `198.51.100.${last + 1}`];
}

for (const backend of BACKENDS) {
  describe(`per-address limits count an IPv6 client by its /64, an IPv4 one by its address [${backend}]`, function () {
    this.timeout(60_000);
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, {
        AUTH_FAILURES_PER_MINUTE: String(BUDGET),
        RATE_LIMIT_PER_MINUTE: String(PER_MINUTE),
        TRUST_PROXY: '1',
      });
    });
    after(async () => c?.close());

    it(`${BUDGET} wrong link secrets from ${BUDGET} addresses of one /64 answer 401, the next from another of its addresses 429; the right secret still links; the next /64 has its own budget`, async () => {
      const network = newNetwork();
      const [next, right, ...guessers] = addressesOf(network, BUDGET + 2);
      const statuses: number[] = [];
      for (const [i, address] of guessers.entries())
        statuses.push((await postLink(c.call, { subject: newSubject(), secret: `wrong-${i}`, address })).status);
      expect(statuses).to.deep.equal(Array(BUDGET).fill(401));
      expect(
        (await postLink(c.call, { subject: newSubject(), secret: 'wrong-again', address: next })).status,
        'an address the /64 has not used yet',
      ).to.equal(429);
      expect(
        (await postLink(c.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET, address: right })).status,
        'the right secret from the /64',
      ).to.equal(201);
      expect(
        (await postLink(c.call, { subject: newSubject(), secret: 'wrong-elsewhere', address: `${nextNetwork(network)}::1` })).status,
        'the next /64',
      ).to.equal(401);
    });

    it(`the dashboard's address rate limit (${LINK_QUOTA} a minute) is one for all the addresses of a /64, and another for the next /64`, async () => {
      const network = newNetwork();
      const statuses: number[] = [];
      for (const address of addressesOf(network, LINK_QUOTA + 1))
        statuses.push((await postLink(c.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET, address })).status);
      expect(statuses).to.deep.equal([...Array(LINK_QUOTA).fill(201), 429]);
      expect(
        (await postLink(c.call, { subject: newSubject(), secret: BASE_ENV.LINK_SECRET, address: `${newNetwork()}::1` })).status,
        'another /64',
      ).to.equal(201);
    });

    it(`the OAuth registration limit (${PER_MINUTE} a minute) is one for all the addresses of a /64`, async () => {
      const register = async (address: string) =>
        (
          await fetch(`${c.baseUrl}/oauth/register`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-forwarded-for': address },
            body: JSON.stringify({
              client_name: 'Block App',
              redirect_uris: ['http://localhost:9/cb'],
              token_endpoint_auth_method: 'none',
            }),
          })
        ).status;
      const statuses: number[] = [];
      for (const address of addressesOf(newNetwork(), PER_MINUTE + 1)) statuses.push(await register(address));
      expect(statuses).to.deep.equal([...Array(PER_MINUTE).fill(201), 429]);
      expect(await register(`${newNetwork()}::1`), 'another /64').to.equal(201);
    });

    it('an IPv4 client is counted by its address, written plain or IPv4-mapped: one budget for both spellings, none shared with the next address', async () => {
      const [address, other] = ipv4Pair();
      const statuses: number[] = [];
      for (let i = 0; i < BUDGET; i++)
        statuses.push(
          (await postLink(c.call, { subject: newSubject(), secret: `wrong-${i}`, address: i % 2 ? `::ffff:${address}` : address })).status,
        );
      expect(statuses).to.deep.equal(Array(BUDGET).fill(401));
      expect((await postLink(c.call, { subject: newSubject(), secret: 'wrong-plain', address })).status).to.equal(429);
      expect((await postLink(c.call, { subject: newSubject(), secret: 'wrong-mapped', address: `::FFFF:${address}` })).status).to.equal(
        429,
      );
      expect(
        (await postLink(c.call, { subject: newSubject(), secret: 'wrong-next-door', address: other })).status,
        'the next IPv4 address',
      ).to.equal(401);
      expect(
        (await postLink(c.call, { subject: newSubject(), secret: 'wrong-next-door-mapped', address: `::ffff:${other}` })).status,
        'the next one, IPv4-mapped',
      ).to.equal(401);
    });
  });
}

describe('per-address limits from real source addresses on loopback [memory]', function () {
  this.timeout(60_000);
  // Addresses of two /64s put on `lo` for the test where the machine allows it (root and iproute2); elsewhere
  // the same addresses arrive as X-Forwarded-For, the way an ingress hands them on (TRUST_PROXY=1 trusts one
  // hop, and a request without the header is counted by its socket's own address).
  const network = newNetwork();
  const sameNetwork = addressesOf(network, BUDGET + 1).map((address) => address.toLowerCase());
  const otherNetwork = `${newNetwork()}::7`;
  let onLoopback = false;
  let c: ConnectorUnderTest;
  let port: number;

  before(async () => {
    onLoopback = addLoopbackAddresses([...sameNetwork, otherNetwork]);
    // Every interface, IPv6 and IPv4 together: an IPv4 client is seen as ::ffff:a.b.c.d, as in a cluster.
    c = await startConnector('memory', { AUTH_FAILURES_PER_MINUTE: String(BUDGET), TRUST_PROXY: '1', HOST: '::' });
    port = Number(new URL(c.baseUrl).port);
  });
  after(async () => {
    await c?.close();
    if (onLoopback) removeLoopbackAddresses([...sameNetwork, otherNetwork]);
  });

  const wrongLink = (source: { local: string; forwarded?: string }, host: string) =>
    requestFrom(source.local, `http://${host}:${port}/v1/link`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-link-secret': `wrong-${randomBytes(4).toString('hex')}`,
        ...(source.forwarded ? { 'x-forwarded-for': source.forwarded } : {}),
      },
      body: JSON.stringify({ subject: newSubject() }),
    }).then((res) => res.status);
  /** An IPv6 source: the address itself on loopback, else ::1 with the address forwarded. */
  const ipv6 = (address: string) => (onLoopback ? { local: address } : { local: '::1', forwarded: address });

  it(`IPv6 sources of one /64 share one budget (${BUDGET} × 401, then 429); a source of another /64 gets 401`, async () => {
    const statuses: number[] = [];
    for (const address of sameNetwork) statuses.push(await wrongLink(ipv6(address), '[::1]'));
    expect(statuses).to.deep.equal([...Array(BUDGET).fill(401), 429]);
    expect(await wrongLink(ipv6(otherNetwork), '[::1]')).to.equal(401);
  });

  it(`IPv4 sources 127.0.0.2 and 127.0.0.3 (::ffff:127.0.0.x to the listener) have a budget each, not one for all IPv4`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= BUDGET; i++) statuses.push(await wrongLink({ local: '127.0.0.2' }, '127.0.0.1'));
    expect(statuses).to.deep.equal([...Array(BUDGET).fill(401), 429]);
    expect(await wrongLink({ local: '127.0.0.3' }, '127.0.0.1'), 'the next loopback address').to.equal(401);
  });
});
