import { expect } from 'chai';
import Redis from 'ioredis';
import { RedisKeys } from '../../shared/adapters/redis/redis-keys';
import type { CimdFetchOptions } from '../../shared/domain/oauth/cimd-fetcher';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { BACKENDS } from '../support/backends';
import { CIMD_HOST, type CimdServer, startCimdServer } from '../support/cimd-server';
import { type ConnectorUnderTest, startConnector } from '../support/harness';
import { authorize, authorizeParams, pendingRequestId, REDIRECT_URI } from '../support/oauth-helpers';
import { waitFor } from '../testkit/wait-for';

const document = (url: string) =>
  JSON.stringify({ client_id: url, client_name: 'Metadata App', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' });

/** How many fetches of metadata documents one process runs at once (the limit the brief asks for). */
const FETCHES_AT_ONCE = 4;

describe('Client ID Metadata Documents under abuse', function () {
  this.timeout(60_000);
  let cimd: CimdServer;
  let trust: CimdFetchOptions;
  let served = 0;
  /** A fresh path on the metadata server, serving a valid document (unless told otherwise). */
  const fresh = (name: string, contentType?: string, valid = true) => {
    const at = `/${name}-${++served}.json`;
    if (valid) cimd.serve(at, document(`${cimd.origin}${at}`), contentType);
    return { at, url: `${cimd.origin}${at}` };
  };
  before(async () => {
    cimd = await startCimdServer();
    trust = { testHosts: { [CIMD_HOST]: '127.0.0.1' }, testCa: cimd.ca };
  });
  after(async () => cimd?.close());

  for (const kind of BACKENDS) {
    describe(`[${kind}]`, () => {
      let connector: ConnectorUnderTest;
      before(async () => {
        connector = await startConnector(kind, {}, { cimdFetch: trust });
      });
      after(async () => connector?.close());
      const ask = (url: string) => authorize(connector.baseUrl, authorizeParams(connector, url).params);

      it('a metadata document URL that answers 404 is fetched once: the second authorization within a minute is refused from memory', async () => {
        const { at, url } = fresh('missing', undefined, false);
        for (let i = 0; i < 3; i++) {
          const res = await ask(url);
          expect(res.status).to.equal(400);
          expect(((await res.json()) as any).error).to.equal('invalid_client');
        }
        expect(cimd.hits(at)).to.equal(1);
      });

      it('a document served as text/plain is refused as not JSON by its content type, and is remembered as refused', async () => {
        const { at, url } = fresh('plain', 'text/plain');
        for (let i = 0; i < 2; i++) {
          const res = await ask(url);
          expect(res.status).to.equal(400);
          expect((await res.json()) as any).to.deep.include({
            error: 'invalid_client',
            error_description: 'the client metadata document is not JSON by its content type',
          });
        }
        expect(cimd.hits(at)).to.equal(1);
      });

      it('a document served as application/json with a charset, or as a +json type, is accepted', async () => {
        for (const type of ['application/json; charset=utf-8', 'application/vnd.example.client+json']) {
          await pendingRequestId(await ask(fresh('typed', type).url));
        }
      });

      it(`more than ${FETCHES_AT_ONCE} fetches at once: the next one answers 503 temporarily_unavailable without fetching, and the held ones complete`, async () => {
        cimd.hold('/slow-');
        const slow = Array.from({ length: FETCHES_AT_ONCE }, () => fresh('slow'));
        const extra = fresh('slow');
        try {
          const pending = slow.map(({ url }) => ask(url));
          await waitFor(() => cimd.waiting() === FETCHES_AT_ONCE, { what: `${FETCHES_AT_ONCE} fetches to be held` });
          const refused = await ask(extra.url);
          expect(refused.status).to.equal(503);
          expect(((await refused.json()) as any).error).to.equal('temporarily_unavailable');
          expect(refused.headers.get('retry-after')).to.equal('1');
          expect(cimd.hits(extra.at)).to.equal(0);
          cimd.release();
          for (const res of await Promise.all(pending)) await pendingRequestId(res);
        } finally {
          cimd.release();
        }
        // A refusal for being busy is not remembered: the same URL works once a slot is free.
        await pendingRequestId(await ask(extra.url));
      });

      it('concurrent authorizations naming one slow document share a single fetch', async () => {
        cimd.hold('/shared-');
        const { at, url } = fresh('shared');
        try {
          const pending = Array.from({ length: 3 }, () => ask(url));
          await waitFor(() => cimd.waiting() === 1, { what: 'the fetch to be held' });
          cimd.release();
          for (const res of await Promise.all(pending)) await pendingRequestId(res);
        } finally {
          cimd.release();
        }
        expect(cimd.hits(at)).to.equal(1);
      });
    });
  }

  describe('[two connectors on one Redis]', () => {
    let first: ConnectorUnderTest;
    let second: ConnectorUnderTest;
    before(async () => {
      first = await startConnector('redis', {}, { cimdFetch: trust });
      second = await startConnector(
        'redis',
        { REDIS_URL: connectionUrl(first.config.redis)!, REDIS_KEY_PREFIX: first.config.redisKeyPrefix },
        { cimdFetch: trust },
      );
    });
    after(async () => {
      await second?.close();
      await first?.close();
    });

    it('a failed fetch on one replica is remembered by the other for 60 s: the document is fetched once', async () => {
      const { at, url } = fresh('elsewhere', undefined, false);
      for (const connector of [first, second]) {
        const res = await authorize(connector.baseUrl, authorizeParams(connector, url).params);
        expect(res.status).to.equal(400);
      }
      expect(cimd.hits(at)).to.equal(1);
      const redis = new Redis(connectionUrl(first.config.redis)!);
      try {
        const ttl = await redis.pttl(new RedisKeys(first.config.redisKeyPrefix).oauth('cimd', url));
        expect(ttl).to.be.within(50_000, 60_000);
      } finally {
        redis.disconnect();
      }
    });
  });
});
