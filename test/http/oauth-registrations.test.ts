import { expect } from 'chai';
import { startConnector, type ConnectorUnderTest } from '../support/harness';
import { REDIRECT_URI } from '../support/oauth-helpers';

/** `POST /oauth/register` with any body; the answer's status and JSON. */
async function register(baseUrl: string, body: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

describe('OAuth dynamic registration: metadata size limits [memory]', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;
  before(async () => {
    connector = await startConnector('memory');
  });
  after(async () => connector?.close());

  const long = (length: number) => `https://app.example.com/${'a'.repeat(length - 'https://app.example.com/'.length)}`;
  for (const [what, body] of [
    ['a client_name of 101 characters', { client_name: 'n'.repeat(101), redirect_uris: [REDIRECT_URI] }],
    ['six redirect URIs', { client_name: 'x', redirect_uris: Array.from({ length: 6 }, (_, i) => `${REDIRECT_URI}${i}`) }],
    ['a redirect URI of 513 characters', { client_name: 'x', redirect_uris: [long(513)] }],
    ['the 14 KB registration of the review (ten 1,400-character URIs)', { client_name: 'x'.repeat(100), redirect_uris: Array.from({ length: 10 }, () => long(1400)) }],
  ] as const) {
    it(`a registration with ${what} is refused with 400 invalid_client_metadata`, async () => {
      const res = await register(connector.baseUrl, body);
      expect(res.status).to.equal(400);
      expect(res.body.error).to.equal('invalid_client_metadata');
    });
  }

  it('a registration at every limit (100-character name, five 512-character URIs) is accepted', async () => {
    const res = await register(connector.baseUrl, { client_name: 'n'.repeat(100), redirect_uris: Array.from({ length: 5 }, (_, i) => long(512 - 1) + i) });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
  });
});
