import { randomBytes } from 'node:crypto';
import { decodePaymentRequiredHeader, encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentPayload, PaymentRequired } from '@x402/core/types';
import { expect } from 'chai';
import { getCreditSummary } from '../../shared/contract/operations/get-credit-summary';
import { getCredits } from '../../shared/contract/operations/get-credits';
import { x402Subject } from '../../shared/domain/x402/x402-subject';
import { newKey } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { type ApiUnderTest, redisEnv, startApiProcess } from '../support/processes';
import { startRedis, type TestRedis } from '../testkit/redis-node';
import { type SharedX402Stand, sharedX402Stand } from '../testkit/shared-x402-stand';
import { waitFor } from '../testkit/wait-for';
import { standClient } from '../testkit/x402-payer';

/** A credit costs this many atomic units of the token. */
const UNIT = 10_000n;

// Issue 47 item 4, on built processes (dist/; `npm run build` first): the API is SIGKILLed after the chain
// moved the payer's money and before it heard so, and another API on the same Redis gets the retry. Black-box:
// whatever steps the stores take between the settlement and the hold, the payment is neither lost nor taken twice.
describe('x402: the built API SIGKILLed right after a settlement was mined, then retried on another API [redis]', function () {
  this.timeout(120_000);
  let stand: SharedX402Stand;
  let redis: TestRedis;
  let env: Record<string, string>;
  const apis: ApiUnderTest[] = [];

  /** A built API on this suite's Redis, the stand's x402 settings and no worker (jobs stay queued), ready. */
  const startApi = async (): Promise<ApiUnderTest> => {
    const api = await startApiProcess(env);
    apis.push(api);
    await waitFor(async () => (await fetch(`${api.baseUrl}/readyz`)).status === 200, { what: 'the API to be ready' });
    return api;
  };
  const submit = (api: ApiUnderTest, key: string, payment?: PaymentPayload) =>
    submitPrompt(api, undefined, 'hello', { key, headers: payment ? { 'payment-signature': encodePaymentSignatureHeader(payment) } : {} });
  const linkSecret = () => ({ headers: { 'x-link-secret': env.LINK_SECRET } });

  before(async () => {
    [stand, redis] = await Promise.all([sharedX402Stand(), startRedis()]);
    env = redisEnv(redis.url, `x402-killed-${randomBytes(3).toString('hex')}:`, stand.connectorEnv(UNIT));
  });
  after(async () => {
    await Promise.all(apis.map((api) => api.kill()));
    await redis?.stop();
    await stand?.release();
  });

  it('the retry of its key with a fresh payment is accepted from the settled credit: one job, the chain moved once, the ledger reconciles', async () => {
    // Two APIs on one Redis, started together (a start is seconds): the second never sees the first request.
    const [first, second] = await Promise.all([startApi(), startApi()]);
    const payer = await stand.newPayer();
    const [payerBefore, sellerBefore] = await Promise.all([stand.balanceOf(payer.address), stand.balanceOf(stand.payTo)]);
    const key = newKey();
    const asked = await submit(first, key);
    expect(asked.status, asked.text).to.equal(402);
    const required: PaymentRequired = decodePaymentRequiredHeader(asked.headers.get('payment-required') ?? '');
    const price = BigInt(required.accepts[0].amount);
    const payment = await standClient(stand, payer).createPaymentPayload(required);

    // Stalling, the facilitator settles and never answers: the API is killed between the two, deterministically.
    await stand.setFacilitatorMode({ stall: 'settle' });
    const mined = stand.nextFacilitatorEvent('settle', 'done');
    const dying = submit(first, key, payment).then(
      () => 'answered',
      () => 'no answer',
    );
    expect(await mined).to.include({ ok: true });
    expect(await first.kill()).to.equal('SIGKILL');
    expect(await dying).to.equal('no answer');
    expect(await stand.balanceOf(payer.address)).to.equal(payerBefore - price);
    await stand.setFacilitatorMode({});

    const fresh = await standClient(stand, payer).createPaymentPayload(required);
    const found = await submit(second, key, fresh);
    expect(found.status, found.text).to.equal(202);
    // The payment the dead API settled is this key's: sent again, it answers the same job and settles nothing.
    const again = await submit(second, key, payment);
    expect([again.status, again.body.id]).to.deep.equal([202, found.body.id]);
    expect(await stand.balanceOf(payer.address)).to.equal(payerBefore - price);
    expect(await stand.balanceOf(stand.payTo)).to.equal(sellerBefore + price);

    const credits = Number(price / UNIT);
    const subject = x402Subject(stand.network, payer.address);
    const account = await second.call('GET', `${getCredits.path}?subject=${encodeURIComponent(subject)}`, linkSecret());
    expect(account.body).to.include({ balance: 0, held: credits });
    const grants = (account.body.entries as Array<{ kind: string; credits: number }>).filter((entry) => entry.kind === 'grant');
    expect(grants.map((grant) => grant.credits)).to.deep.equal([credits]);
    const summary = await second.call('GET', getCreditSummary.path, linkSecret());
    expect(summary.body).to.include({ reconciles: true, granted: credits, captured: 0, balance: 0, held: credits, holds: 1 });
  });
});
