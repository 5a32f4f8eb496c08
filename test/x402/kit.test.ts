import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  decodePaymentResponseHeader,
  decodePaymentSignatureHeader,
  encodePaymentRequiredHeader,
  encodePaymentResponseHeader,
  HTTPFacilitatorClient,
} from '@x402/core/http';
import type { PaymentPayload } from '@x402/core/types';
import { expect } from 'chai';
import { measurement } from '../support/measurement';
import { type SharedX402Stand, sharedX402Stand } from '../testkit/shared-x402-stand';
import { payingFetch, signPayment, standClient, tamperSignature } from '../testkit/x402-payer';

// The real parts the x402 suites pay through, checked on their own: the official client's payload, verified
// and settled by the facilitator process against the local chain, moves exactly the amount on chain, and
// every payment the token or the facilitator must refuse is refused with nothing moved.
describe('x402 kit: a local chain, the test token and the @x402/evm facilitator', function () {
  this.timeout(60_000);
  let stand: SharedX402Stand;
  let facilitator: HTTPFacilitatorClient;

  before(async () => {
    const started = Date.now();
    stand = await sharedX402Stand();
    measurement(`x402 stand ready (chain, token, payer, facilitator; shared by this process) in ${Date.now() - started} ms`);
    facilitator = new HTTPFacilitatorClient({ url: stand.facilitatorUrl });
  });
  after(() => stand?.release());

  /** The payload the official client makes for a payment of `amount` by `payer` (the stand's unless said). */
  async function officialPayload(amount: bigint, payer = stand.payer): Promise<PaymentPayload> {
    const accepts = [stand.requirements(amount)];
    return standClient(stand, payer).createPaymentPayload({ x402Version: 2, resource: { url: 'http://connector.test/v1/jobs' }, accepts });
  }

  /**
   * A payment of `amount` sent to a facilitator stalled on settle, once the chain has settled it: the payload,
   * the balances before, and the settle call's fate (`answered` or `no answer`), still pending.
   */
  async function settledUnanswered(amount: bigint) {
    const payload = await officialPayload(amount);
    const before = await balances();
    await stand.setFacilitatorMode({ stall: 'settle' });
    const settledOnChain = stand.nextFacilitatorEvent('settle', 'done');
    const unanswered = facilitator.settle(payload, stand.requirements(amount)).then(
      () => 'answered',
      () => 'no answer',
    );
    expect(await settledOnChain).to.include({ ok: true });
    return { payload, before, unanswered };
  }

  /** The payer's and the seller's balances, read together. */
  async function balances(payer = stand.payer.address) {
    const [from, to] = await Promise.all([stand.balanceOf(payer), stand.balanceOf(stand.payTo)]);
    return { from, to };
  }

  it("the connector's settings name the stand's seller, network, token, domain, price per credit and facilitator", () => {
    expect(stand.connectorEnv(25n)).to.deep.equal({
      X402: 'on',
      X402_PAY_TO: stand.payTo,
      X402_NETWORK: 'eip155:31337',
      X402_ASSET: stand.asset.address,
      X402_ASSET_NAME: 'Test Dollar',
      X402_ASSET_VERSION: '2',
      X402_ATOMIC_PER_CREDIT: '25',
      X402_FACILITATOR_URL: stand.facilitatorUrl,
    });
  });

  it('the facilitator lists the exact scheme on the local network', async () => {
    const supported = await facilitator.getSupported();
    expect(supported.kinds).to.deep.include({ x402Version: 2, scheme: 'exact', network: 'eip155:31337' });
  });

  it('the facilitator answers 400 to a body that is not a facilitator request, 404 elsewhere; the chain -32700 to non-JSON', async () => {
    const post = (url: string, body: string) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const notARequest = await post(`${stand.facilitatorUrl}/verify`, '{"paymentPayload":1}');
    expect([notARequest.status, await notARequest.json()]).to.deep.equal([
      400,
      { error: 'expected { x402Version, paymentPayload, paymentRequirements }' },
    ]);
    expect((await post(`${stand.facilitatorUrl}/refund`, '{}')).status).to.equal(404);
    const garbled = await post(stand.rpcUrl, 'not json');
    expect(await garbled.json()).to.nested.include({ 'error.code': -32700 });
  });

  it("the official client's payment, verified then settled, moves exactly its amount from the payer to payTo", async () => {
    const before = await balances();
    const payload = await officialPayload(1_250_000n);
    const verified = await facilitator.verify(payload, stand.requirements(1_250_000n));
    expect(verified).to.include({ isValid: true, payer: stand.payer.address });
    const settled = await facilitator.settle(payload, stand.requirements(1_250_000n));
    expect(settled).to.include({ success: true, network: stand.network, payer: stand.payer.address });
    expect(settled.transaction).to.match(/^0x[0-9a-f]{64}$/);
    expect(await balances()).to.deep.equal({ from: before.from - 1_250_000n, to: before.to + 1_250_000n });
  });

  it('a payload settled once is refused the second time (nonce used) and moves nothing more', async () => {
    const payload = await officialPayload(10_000n);
    expect(await facilitator.settle(payload, stand.requirements(10_000n))).to.include({ success: true });
    const before = await balances();
    expect(await facilitator.verify(payload, stand.requirements(10_000n))).to.include({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    });
    const again = await facilitator.settle(payload, stand.requirements(10_000n));
    expect(again).to.include({ success: false });
    expect(await balances()).to.deep.equal(before);
  });

  it('a payer holding less than the amount is refused (insufficient balance) and nothing moves', async () => {
    const poor = await stand.newPayer(5_000n);
    const payload = await officialPayload(5_001n, poor);
    const before = await balances(poor.address);
    expect(await facilitator.verify(payload, stand.requirements(5_001n))).to.include({
      isValid: false,
      invalidReason: 'invalid_exact_evm_insufficient_balance',
    });
    expect(await facilitator.settle(payload, stand.requirements(5_001n))).to.include({ success: false });
    expect(await balances(poor.address)).to.deep.equal({ ...before, from: 5_000n });
  });

  it('an authorization past its validBefore is refused as expired and nothing moves', async () => {
    const requirements = stand.requirements(20_000n);
    const expired = String(Math.floor(Date.now() / 1000) - 1);
    const payload = await signPayment({ payer: stand.payer, requirements, authorization: { validBefore: expired } });
    const before = await balances();
    expect(await facilitator.verify(payload, requirements)).to.include({
      isValid: false,
      invalidReason: 'invalid_exact_evm_payload_authorization_valid_before',
    });
    expect(await facilitator.settle(payload, requirements)).to.include({ success: false });
    expect(await balances()).to.deep.equal(before);
  });

  it('a hand-signed payment that matches the requirements settles, as the official one does', async () => {
    const requirements = stand.requirements(30_000n);
    const before = await balances();
    const payload = await signPayment({ payer: stand.payer, requirements });
    expect(await facilitator.settle(payload, requirements)).to.include({ success: true });
    expect(await balances()).to.deep.equal({ from: before.from - 30_000n, to: before.to + 30_000n });
  });

  it('a tampered signature, another payTo or another token are refused and nothing moves', async () => {
    const requirements = stand.requirements(40_000n);
    const stranger = await stand.newPayer(0n);
    const refused = [
      { payload: tamperSignature(await signPayment({ payer: stand.payer, requirements })), reason: 'invalid_exact_evm_signature' },
      {
        payload: await signPayment({ payer: stand.payer, requirements, authorization: { to: stranger.address } }),
        reason: 'invalid_exact_evm_recipient_mismatch',
      },
      {
        payload: await signPayment({ payer: stand.payer, requirements, domain: { verifyingContract: stranger.address } }),
        reason: 'invalid_exact_evm_signature',
      },
    ];
    const before = await balances();
    for (const { payload, reason } of refused) {
      expect(await facilitator.verify(payload, requirements), reason).to.include({ isValid: false, invalidReason: reason });
      expect(await facilitator.settle(payload, requirements), reason).to.include({ success: false });
    }
    expect(await balances()).to.deep.equal(before);
    expect(await stand.balanceOf(stranger.address)).to.equal(0n);
  });

  it('a killed facilitator refuses connections, and once restarted at the same URL settles the same payload', async () => {
    const payload = await officialPayload(50_000n);
    const before = await balances();
    await stand.killFacilitator();
    const down = await facilitator.verify(payload, stand.requirements(50_000n)).then(
      () => 'answered',
      () => 'unreachable',
    );
    expect(down).to.equal('unreachable');
    const restarting = Date.now();
    await stand.restartFacilitator();
    measurement(`the facilitator restarted in ${Date.now() - restarting} ms`);
    expect(await facilitator.settle(payload, stand.requirements(50_000n))).to.include({ success: true });
    expect(await balances()).to.deep.equal({ from: before.from - 50_000n, to: before.to + 50_000n });
  });

  it('a facilitator that settles and dies before answering has moved the money once; the same payload is refused after', async () => {
    const { payload, before, unanswered } = await settledUnanswered(60_000n);
    await stand.killFacilitator();
    expect(await unanswered).to.equal('no answer');
    expect(await balances()).to.deep.equal({ from: before.from - 60_000n, to: before.to + 60_000n });
    await stand.restartFacilitator();
    expect(await facilitator.settle(payload, stand.requirements(60_000n))).to.include({ success: false });
    expect(await balances()).to.deep.equal({ from: before.from - 60_000n, to: before.to + 60_000n });
  });

  it('a stalling facilitator switched back to answering cuts the answer it kept back, and answers the next call', async () => {
    const { payload, before, unanswered } = await settledUnanswered(65_000n);
    await stand.setFacilitatorMode({});
    expect(await unanswered).to.equal('no answer');
    expect(await balances()).to.deep.equal({ from: before.from - 65_000n, to: before.to + 65_000n });
    expect(await facilitator.verify(payload, stand.requirements(65_000n))).to.include({
      isValid: false,
      invalidReason: 'invalid_exact_evm_nonce_already_used',
    });
  });

  /**
   * The smallest x402 v2 seller: 402 with PAYMENT-REQUIRED for `amount`; a retry with PAYMENT-SIGNATURE is
   * settled through the stand's facilitator and answered 200 with PAYMENT-RESPONSE.
   */
  async function sellerServer(amount: bigint): Promise<{ url: string; close(): void }> {
    const server = http.createServer(async (request, response) => {
      const signature = request.headers['payment-signature'];
      if (typeof signature !== 'string') {
        const required = { x402Version: 2, resource: { url: 'http://seller.test/' }, accepts: [stand.requirements(amount)] };
        response.writeHead(402, { 'payment-required': encodePaymentRequiredHeader(required) }).end('{}');
        return;
      }
      const settled = await facilitator.settle(decodePaymentSignatureHeader(signature), stand.requirements(amount));
      response.writeHead(settled.success ? 200 : 402, { 'payment-response': encodePaymentResponseHeader(settled) }).end('{"paid":true}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() };
  }

  it('payingFetch (@x402/fetch) answers a 402 by paying its amount once and gets the paid answer', async () => {
    const seller = await sellerServer(70_000n);
    try {
      const before = await balances();
      const response = await payingFetch(stand, stand.payer)(seller.url);
      expect(response.status).to.equal(200);
      expect(await response.json()).to.deep.equal({ paid: true });
      const receipt = decodePaymentResponseHeader(response.headers.get('payment-response') ?? '');
      expect(receipt).to.include({ success: true, payer: stand.payer.address });
      expect(await balances()).to.deep.equal({ from: before.from - 70_000n, to: before.to + 70_000n });
    } finally {
      seller.close();
    }
  });
});
