import { decodePaymentRequiredHeader, decodePaymentResponseHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import { expect } from 'chai';
import { type ConnectorUnderTest, newKey, startConnector } from '../support/harness';
import { type SharedX402Stand, sharedX402Stand } from '../testkit/shared-x402-stand';
import { waitFor } from '../testkit/wait-for';
import { payingFetch, signPayment, standClient, tamperSignature } from '../testkit/x402-payer';

const UNIT = 10_000n;

describe('x402 over HTTP against a real chain and the @x402/evm facilitator [redis]', function () {
  this.timeout(180_000);
  let stand: SharedX402Stand;
  let connector: ConnectorUnderTest;
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${connector.baseUrl}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const job = (prompt = 'hello') => ({ input: { prompt }, idempotency_key: newKey() });
  const statement = async (address: string) => {
    const subject = `x402:${stand.network}:${address.toLowerCase()}`;
    const res = await connector.call('GET', `/v1/link/credits?subject=${encodeURIComponent(subject)}&limit=100`, {
      headers: { 'x-link-secret': connector.config.linkSecret },
    });
    return res.body as { balance: number; held: number; entries: Array<{ kind: string }> };
  };
  const requiredFor = async (body: unknown) => decodePaymentRequiredHeader((await post(body)).headers.get('payment-required') ?? '');

  before(async () => {
    stand = await sharedX402Stand();
    connector = await startConnector('redis', stand.connectorEnv(UNIT));
  });
  after(async () => {
    await connector?.close();
    await stand?.release();
  });

  it('an @x402/fetch client pays exactly the price on chain, once, and a retry of its key pays nothing more', async () => {
    const payer = await stand.newPayer();
    const [before, sellerBefore] = [await stand.balanceOf(payer.address), await stand.balanceOf(stand.payTo)];
    const body = job();
    const pay = payingFetch(stand, payer);
    const res = await pay(`${connector.baseUrl}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(res.status, await res.clone().text()).to.equal(202);
    expect(decodePaymentResponseHeader(res.headers.get('payment-response') ?? '').transaction).to.match(/^0x[0-9a-f]{64}$/);
    const again = await pay(`${connector.baseUrl}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(again.status).to.equal(202);
    expect(await stand.balanceOf(payer.address)).to.equal(before - UNIT);
    expect(await stand.balanceOf(stand.payTo)).to.equal(sellerBefore + UNIT);
    const token = res.headers.get('payer-token') ?? '';
    const { id } = (await res.json()) as { id: string };
    await waitFor(async () => (await connector.call('GET', `/v1/jobs/${id}`, { token })).body.status === 'succeeded', { what: 'the job' });
    expect(await statement(payer.address)).to.include({ balance: 0, held: 0 });
  });

  it('a nonce used before, too little balance, an expiry, a wrong payTo or asset and a tampered signature are refused with nothing moved', async () => {
    const payer = await stand.newPayer();
    const poor = await stand.newPayer(UNIT - 1n);
    const body = job();
    const required = await requiredFor(body);
    const wanted = required.accepts[0];
    const paid = await standClient(stand, payer).createPaymentPayload(required);
    expect((await post(body, { 'payment-signature': encodePaymentSignatureHeader(paid) })).status).to.equal(202);
    const sellerBefore = await stand.balanceOf(stand.payTo);
    const now = Math.floor(Date.now() / 1000);
    const bad = [
      paid,
      await signPayment({ payer: poor, requirements: wanted }),
      await signPayment({ payer, requirements: wanted, authorization: { validBefore: String(now - 5) } }),
      await signPayment({ payer, requirements: { ...wanted, payTo: poor.address } }),
      await signPayment({ payer, requirements: wanted, domain: { verifyingContract: poor.address } }),
      tamperSignature(await signPayment({ payer, requirements: wanted })),
    ];
    for (const payment of bad) {
      const res = await post(job(), { 'payment-signature': encodePaymentSignatureHeader(payment) });
      expect(res.status, await res.text()).to.equal(402);
    }
    expect(await stand.balanceOf(stand.payTo)).to.equal(sellerBefore);
    expect(await statement(poor.address)).to.include({ balance: 0, held: 0 });
  });

  it('a facilitator killed mid-flow answers 503 with nothing held, and the same payment goes through once it is back', async () => {
    const payer = await stand.newPayer();
    const body = job();
    const payment = await standClient(stand, payer).createPaymentPayload(await requiredFor(body));
    await stand.killFacilitator();
    const down = await post(body, { 'payment-signature': encodePaymentSignatureHeader(payment) });
    expect(down.status).to.equal(503);
    expect(await statement(payer.address)).to.include({ balance: 0, held: 0 });
    await stand.restartFacilitator();
    const before = await stand.balanceOf(payer.address);
    expect((await post(body, { 'payment-signature': encodePaymentSignatureHeader(payment) })).status).to.equal(202);
    expect(await stand.balanceOf(payer.address)).to.equal(before - UNIT);
  });

  it('a settlement mined whose answer is lost (its connection cut) is found by the next call with the key: charged once', async () => {
    const payer = await stand.newPayer();
    const before = await stand.balanceOf(payer.address);
    const body = job();
    const payment = await standClient(stand, payer).createPaymentPayload(await requiredFor(body));
    // Stalling, the facilitator keeps its answer back once it has settled; switched back, it cuts that answer.
    await stand.setFacilitatorMode({ stall: 'settle' });
    const mined = stand.nextFacilitatorEvent('settle', 'done');
    const lost = post(body, { 'payment-signature': encodePaymentSignatureHeader(payment) });
    expect(await mined).to.include({ ok: true });
    await stand.setFacilitatorMode({});
    expect((await lost).status).to.equal(503);
    expect(await stand.balanceOf(payer.address)).to.equal(before - UNIT);
    // The agent tries again with a fresh payment for the same key: the first one is found, nothing more is taken.
    const fresh = await standClient(stand, payer).createPaymentPayload(await requiredFor(body));
    const found = await post(body, { 'payment-signature': encodePaymentSignatureHeader(fresh) });
    expect(found.status, await found.clone().text()).to.equal(202);
    expect(await stand.balanceOf(payer.address)).to.equal(before - UNIT);
    const account = await statement(payer.address);
    expect(account.entries.filter((entry) => entry.kind === 'grant')).to.have.length(1);
  });

  it('a failed job gives its price back, and the payer’s next call spends it with no transfer on chain', async () => {
    const payer = await stand.newPayer();
    const pay = payingFetch(stand, payer);
    const failing = await pay(`${connector.baseUrl}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(job('!fail now')),
    });
    expect(failing.status).to.equal(202);
    const token = failing.headers.get('payer-token') ?? '';
    const { id } = (await failing.json()) as { id: string };
    await waitFor(async () => (await connector.call('GET', `/v1/jobs/${id}`, { token })).body.status === 'failed', { what: 'the failure' });
    const before = await stand.balanceOf(payer.address);
    const next = await pay(`${connector.baseUrl}/v1/jobs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(job()),
    });
    expect(next.status).to.equal(202);
    expect(await stand.balanceOf(payer.address)).to.equal(before);
    const account = await statement(payer.address);
    expect(account.balance).to.equal(0);
    expect(account.entries.filter((entry) => entry.kind === 'grant')).to.have.length(1);
  });
});
