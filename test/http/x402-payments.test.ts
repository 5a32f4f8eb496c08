import { randomBytes } from 'node:crypto';
import { x402Client } from '@x402/core/client';
import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment } from '@x402/fetch';
import { expect } from 'chai';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { RedisLedgerStore } from '../../shared/adapters/redis/redis-ledger-store';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { connectionUrl } from '../../shared/platform/config/redis-settings';
import { BACKENDS } from '../support/backends';
import { grantOf } from '../support/credit-store-contract';
import { EXTRA_OPERATIONS } from '../support/extra-operations';
import { type ConnectorUnderTest, newKey, startConnector } from '../support/harness';
import { scrape, sumOf } from '../support/prometheus-text';
import { connectStoreClient } from '../support/redis-fixture';
import { StubFacilitator } from '../support/stub-facilitator';
import { waitFor } from '../testkit/wait-for';

const NETWORK = 'eip155:84532';
const X402_ENV = {
  X402: 'on',
  X402_PAY_TO: '0x1111111111111111111111111111111111111111',
  X402_NETWORK: NETWORK,
  X402_ASSET: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
  X402_ASSET_NAME: 'USDC',
  X402_ASSET_VERSION: '2',
  X402_ATOMIC_PER_CREDIT: '10000',
};

/** A paying agent: its wallet and the official x402 fetch wrapper around it. */
function agent() {
  const account = privateKeyToAccount(generatePrivateKey());
  const client = registerExactEvmScheme(new x402Client(), { signer: account });
  return { account, subject: `x402:${NETWORK}:${account.address.toLowerCase()}`, client, pay: wrapFetchWithPayment(fetch, client) };
}

for (const kind of BACKENDS) {
  describe(`x402 payments over HTTP [${kind}]`, function () {
    this.timeout(60_000);
    let facilitator: StubFacilitator;
    let connector: ConnectorUnderTest;
    const link = () => ({ 'x-link-secret': connector.config.linkSecret });
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${connector.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const statement = async (subject: string) => {
      const res = await connector.call('GET', `/v1/link/credits?subject=${encodeURIComponent(subject)}&limit=100`, { headers: link() });
      return res.body as { balance: number; held: number; entries: Array<{ kind: string; credits: number; grant_id?: string }> };
    };
    const jobBody = (prompt = 'hello') => ({ input: { prompt }, idempotency_key: newKey() });

    before(async () => {
      facilitator = await StubFacilitator.start();
      connector = await startConnector(
        kind,
        // Metered billing (the default): an x402 account holds all the same, and its orphaned holds are swept.
        { ...X402_ENV, X402_FACILITATOR_URL: facilitator.url, HOLD_ORPHAN_SECONDS: '1' },
        { operations: [...OPERATIONS, ...EXTRA_OPERATIONS] },
      );
    });
    after(async () => {
      await connector?.close();
      await facilitator?.close();
    });
    beforeEach(() => {
      facilitator.mode = 'ok';
    });

    it('a paid call with no token and no payment answers 402 with PAYMENT-REQUIRED priced from this input', async () => {
      const short = await post('/v1/translations', { input: { text: 'a'.repeat(10), target_language: 'de' }, idempotency_key: newKey() });
      const long = await post('/v1/translations', { input: { text: 'a'.repeat(2500), target_language: 'de' }, idempotency_key: newKey() });
      expect(short.status).to.equal(402);
      const [one, three] = [short, long].map((res) => decodePaymentRequiredHeader(res.headers.get('payment-required') ?? ''));
      expect(one.x402Version).to.equal(2);
      expect(one.accepts[0]).to.include({ scheme: 'exact', network: NETWORK, amount: '30000', payTo: X402_ENV.X402_PAY_TO });
      expect(three.accepts[0].amount).to.equal('90000');
      expect(one.resource.url).to.match(/\/v1\/translations$/);
    });

    it('/openapi.json marks each paid operation with x-x402 and its amounts, and /llms.txt tells agents how to pay', async () => {
      const document = (await connector.call('GET', '/openapi.json')).body;
      const translate = document.paths['/v1/translations'].post;
      expect(translate['x-x402']).to.include({ scheme: 'exact', network: NETWORK, min_amount: '30000', max_amount: '600000' });
      expect(translate['x-cost'].min).to.equal(3);
      expect(document.paths['/v1/jobs'].get['x-x402']).to.equal(undefined);
      const llms = (await connector.call('GET', '/llms.txt')).text;
      expect(llms).to.include('## Paying with x402 (agents without a token)');
      expect(llms).to.include('- translateDocument (POST /v1/translations): 30000 to 600000 token units');
    });

    it('the dashboard may not link a subject starting with x402: (a payer is proven by its wallet only)', async () => {
      const res = await connector.call('POST', '/v1/link', { body: { subject: `x402:${NETWORK}:0xabc` }, headers: link() });
      expect(res.status).to.equal(400);
    });

    it('a body that fails the schema answers 400 before any price is asked', async () => {
      const res = await post('/v1/jobs', { input: { prompt: '' }, idempotency_key: newKey() });
      expect(res.status).to.equal(400);
      expect(res.headers.get('payment-required')).to.equal(null);
    });

    it('a wrong bearer token is a 401, never a payment request', async () => {
      const res = await post('/v1/jobs', jobBody(), { authorization: 'Bearer nope' });
      expect(res.status).to.equal(401);
      expect(res.headers.get('payment-required')).to.equal(null);
    });

    it('an agent paying with @x402/fetch gets the 202, PAYMENT-RESPONSE and a payer token that reads the job; the key again settles nothing', async () => {
      const payer = agent();
      const body = jobBody();
      const res = await payer.pay(`${connector.baseUrl}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).to.equal(202);
      const settlement = decodePaymentResponseHeader(res.headers.get('payment-response') ?? '');
      expect(settlement.success).to.equal(true);
      expect(settlement.transaction).to.match(/^0x[0-9a-f]{64}$/);
      expect(facilitator.settled).to.have.length.greaterThan(0);
      const settledBefore = facilitator.settled.length;
      const job = (await res.json()) as { id: string };
      const token = res.headers.get('payer-token') ?? '';
      const read = await connector.call('GET', `/v1/jobs/${job.id}`, { token });
      expect(read.status).to.equal(200);
      const again = await post('/v1/jobs', body, { authorization: `Bearer ${token}` });
      expect(again.status).to.equal(202);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(((await again.json()) as { id: string }).id).to.equal(job.id);
      expect(facilitator.settled.length).to.equal(settledBefore);
      await waitFor(async () => (await connector.call('GET', `/v1/jobs/${job.id}`, { token })).body.status === 'succeeded', {
        what: 'the job',
      });
      const account = await statement(payer.subject);
      expect(account).to.include({ balance: 0, held: 0 });
      expect(account.entries.map((entry) => entry.kind)).to.deep.equal(['capture', 'hold', 'grant']);
    });

    it('the same payment again with its key answers the same job without a second settlement; with another key it is refused', async () => {
      const payer = agent();
      const body = jobBody();
      const first = await post('/v1/jobs', body);
      const required = decodePaymentRequiredHeader(first.headers.get('payment-required') ?? '');
      const payload = await payer.client.createPaymentPayload(required);
      const signature = encodePaymentSignatureHeader(payload);
      const paid = await post('/v1/jobs', body, { 'payment-signature': signature });
      expect(paid.status).to.equal(202);
      const settled = facilitator.settled.length;
      const replay = await post('/v1/jobs', body, { 'payment-signature': signature });
      expect(replay.status).to.equal(202);
      expect(((await replay.json()) as { id: string }).id).to.equal(((await paid.json()) as { id: string }).id);
      const reused = await post('/v1/jobs', jobBody(), { 'payment-signature': signature });
      expect(reused.status).to.equal(402);
      expect(((await reused.json()) as { reason: string }).reason).to.equal('nonce_used');
      expect(facilitator.settled.length).to.equal(settled);
      const account = await statement(payer.subject);
      expect(account.entries.filter((entry) => entry.kind === 'grant')).to.have.length(1);
    });

    it('four paid calls by one payer leave one connection, whose token each answer carries; once revoked, the next paid answer makes a new one', async () => {
      const payer = agent();
      const paid = async () => {
        const res = await payer.pay(`${connector.baseUrl}/v1/jobs`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(jobBody()),
        });
        expect(res.status).to.equal(202);
        return { token: res.headers.get('payer-token') ?? '', id: ((await res.json()) as { id: string }).id };
      };
      const connections = async () => {
        const query = `subject=${encodeURIComponent(payer.subject)}&include_revoked=true`;
        return (await connector.call('GET', `/v1/link/connections?${query}`, { headers: link() })).body.items as Array<{
          revoked: boolean;
        }>;
      };
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await paid());
      expect(new Set(answers.map((answer) => answer.token)).size, 'one token').to.equal(1);
      expect(await connections()).to.have.length(1);
      const revoke = await connector.call('POST', '/v1/link/revoke', { body: { subject: payer.subject }, headers: link() });
      expect(revoke.body).to.deep.equal({ revoked: 1 });
      expect((await connector.call('GET', `/v1/jobs/${answers[0].id}`, { token: answers[0].token })).status).to.equal(401);
      const after = await paid();
      expect(after.token).not.to.equal(answers[0].token);
      expect((await connector.call('GET', `/v1/jobs/${answers[0].id}`, { token: after.token })).status).to.equal(200);
      expect((await connections()).map((connection) => connection.revoked).sort()).to.deep.equal([false, true]);
    });

    it('a tampered signature, a wrong payee and a refusing or unreachable facilitator each leave nothing held or settled', async () => {
      const payer = agent();
      const body = jobBody();
      const required = decodePaymentRequiredHeader((await post('/v1/jobs', body)).headers.get('payment-required') ?? '');
      const payload = await payer.client.createPaymentPayload(required);
      const tampered = structuredClone(payload);
      const signature = (tampered.payload as { signature: string }).signature;
      (tampered.payload as { signature: string }).signature =
        `${signature.slice(0, 10)}${signature[10] === 'a' ? 'b' : 'a'}${signature.slice(11)}`;
      const wrongPayee = structuredClone(payload);
      wrongPayee.accepted.payTo = '0x2222222222222222222222222222222222222222';
      const settled = facilitator.settled.length;
      for (const bad of [tampered, wrongPayee]) {
        const res = await post('/v1/jobs', body, { 'payment-signature': encodePaymentSignatureHeader(bad) });
        expect(res.status).to.equal(402);
      }
      facilitator.mode = 'refuse';
      expect((await post('/v1/jobs', body, { 'payment-signature': encodePaymentSignatureHeader(payload) })).status).to.equal(402);
      facilitator.mode = 'down';
      const down = await post('/v1/jobs', body, { 'payment-signature': encodePaymentSignatureHeader(payload) });
      expect(down.status).to.equal(503);
      expect(facilitator.settled.length).to.equal(settled);
      expect(await statement(payer.subject)).to.include({ balance: 0, held: 0 });
      facilitator.mode = 'ok';
      expect((await post('/v1/jobs', body, { 'payment-signature': encodePaymentSignatureHeader(payload) })).status).to.equal(202);
    });

    it('a settlement never answered is a 503; three concurrent retries of the key grant and hold that payment once, settling nothing more', async () => {
      const payer = agent();
      const body = jobBody();
      const required = decodePaymentRequiredHeader((await post('/v1/jobs', body)).headers.get('payment-required') ?? '');
      const signature = encodePaymentSignatureHeader(await payer.client.createPaymentPayload(required));
      facilitator.mode = 'lost';
      expect((await post('/v1/jobs', body, { 'payment-signature': signature })).status).to.equal(503);
      expect(await statement(payer.subject)).to.include({ balance: 0, held: 0 });
      const settled = facilitator.settled.length;
      facilitator.mode = 'ok';
      const retries = await Promise.all([1, 2, 3].map(() => post('/v1/jobs', body, { 'payment-signature': signature })));
      expect(retries.map((res) => res.status)).to.deep.equal([202, 202, 202]);
      const ids = await Promise.all(retries.map(async (res) => ((await res.json()) as { id: string }).id));
      expect(new Set(ids).size, 'one job').to.equal(1);
      expect(facilitator.settled.length, 'no second settlement').to.equal(settled);
      const kinds = (await statement(payer.subject)).entries.map((entry) => entry.kind);
      expect(kinds.filter((kind) => kind === 'grant' || kind === 'hold')).to.deep.equal(['hold', 'grant']);
    });

    if (kind === 'redis') {
      it('in metered billing, an x402 grant-and-hold whose job was never enqueued is swept: the payment goes back to the balance', async () => {
        const store = await connectStoreClient(connectionUrl(connector.config.redis)!, connector.config.redisKeyPrefix);
        try {
          const { subject } = agent();
          const jobId = `job_${randomBytes(12).toString('base64url')}`;
          const grant = grantOf(subject, 2, `0x${randomBytes(32).toString('hex')}`, 'x402 payment');
          // The funded claim with no enqueue after it: what an API that died right after it leaves.
          const claim = { subject, key: 'k', fingerprint: 'fp', jobId, operation: 'createJob', cost: 2, ttlSeconds: 600, hold: { grant } };
          expect((await new RedisLedgerStore(store.client, store.keys, store.guard).claim(claim)).outcome).to.equal('created');
          const swept = await waitFor(
            async () => {
              const now = await statement(subject);
              return now.held === 0 ? now : undefined;
            },
            { timeoutMs: 20_000, what: 'the sweep to release the hold' },
          );
          expect(swept.balance).to.equal(2);
          expect(swept.entries.map((entry) => entry.kind)).to.deep.equal(['release', 'hold', 'grant']);
        } finally {
          await store.close();
        }
      });
    }

    it('a failed job gives its price back to the payer, whose next call spends it without settling', async () => {
      const payer = agent();
      const failing = await payer.pay(`${connector.baseUrl}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(jobBody('!fail please')),
      });
      expect(failing.status).to.equal(202);
      const token = failing.headers.get('payer-token') ?? '';
      const { id } = (await failing.json()) as { id: string };
      await waitFor(async () => (await connector.call('GET', `/v1/jobs/${id}`, { token })).body.status === 'failed', {
        what: 'the failure',
      });
      expect(await statement(payer.subject)).to.include({ balance: 1, held: 0 });
      const settled = facilitator.settled.length;
      const next = await payer.pay(`${connector.baseUrl}/v1/jobs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(jobBody()),
      });
      expect(next.status).to.equal(202);
      expect(decodePaymentResponseHeader(next.headers.get('payment-response') ?? '').transaction).to.equal('');
      expect(facilitator.settled.length).to.equal(settled);
      const page = await scrape(connector.metricsUrl);
      expect(sumOf(page, 'connector_x402_payments_total', { outcome: 'account' }), 'calls answered from the account').to.be.greaterThan(0);
      expect(sumOf(page, 'connector_x402_payments_total', { outcome: 'settled' }), 'payments settled').to.be.greaterThan(0);
    });
  });
}
