import { expect } from 'chai';
import * as z from 'zod';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { perUnit } from '../../shared/domain/jobs/price';
import { paidJob } from '../../shared/domain/jobs/processor';
import { BACKENDS } from '../support/backends';
import { withOperations } from '../support/extra-operations';
import { type CallResult, type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { submitPrompt } from '../support/job-submission';
import { scrape, sumOf } from '../support/prometheus-text';

const LIMIT = 3;
const PROBLEM = /^application\/problem\+json/;

/** A paid operation priced by its input: 1 credit per item, 1 to 10 items, so some orders cost more than the cap. */
const orderItems = paidOperation({
  job: paidJob({
    operationId: 'orderItems',
    input: z.strictObject({ items: z.int().min(1).max(10) }),
    processor: () => async (input) => ({ items: input.items }),
  }),
  path: '/v1/orders',
  summary: 'Order items',
  description: 'Orders 1 to 10 items, charged once when accepted: ask the person first.',
  price: perUnit({ credits: 1, unit: 'item', field: 'items', min: 1, max: 10 }),
});

/** The next midnight UTC after `at`, as an ISO string. */
const nextUtcMidnight = (at: number) => new Date((Math.floor(at / 86_400_000) + 1) * 86_400_000).toISOString();

for (const backend of BACKENDS) {
  describe(`daily credit budget, DAILY_CREDIT_LIMIT=${LIMIT} [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend, { DAILY_CREDIT_LIMIT: String(LIMIT) }, { operations: withOperations(OPERATIONS, [orderItems]) });
    });
    after(async () => c.close());

    it(`20 concurrent new jobs with distinct keys: exactly ${LIMIT} are accepted and charged, 17 answer 402`, async () => {
      const token = await c.link(newSubject());
      const before = await scrape(c.metricsUrl);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => submitPrompt(c, token, `job ${i}`)));
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).to.deep.equal([...Array(LIMIT).fill(202), ...Array(20 - LIMIT).fill(402)]);
      const me = await c.call('GET', '/v1/me', { token });
      expect(me.body.usage).to.deep.equal({ jobs_charged: LIMIT, credits_spent: LIMIT, credits_refunded: 0 });
      expect(me.body.daily_budget).to.include({ limit: LIMIT, spent: LIMIT, remaining: 0 });
      expect((await c.call('GET', '/v1/jobs', { token })).body.items).to.have.length(LIMIT);
      const after = await scrape(c.metricsUrl);
      const charged = sumOf(after, 'connector_credits_charged_total') - sumOf(before, 'connector_credits_charged_total');
      expect(charged).to.equal(LIMIT);
      const refused =
        sumOf(after, 'connector_jobs_over_budget_total', { operation: 'createJob' }) -
        sumOf(before, 'connector_jobs_over_budget_total', { operation: 'createJob' });
      expect(refused).to.equal(20 - LIMIT);
    });

    it('the 402 is problem+json whose detail names the next midnight UTC, with Retry-After counting down to it', async () => {
      const token = await c.link(newSubject());
      for (let i = 0; i < LIMIT; i++) expect((await submitPrompt(c, token, `paid ${i}`)).status).to.equal(202);
      const sentAt = Date.now();
      const refused = await submitPrompt(c, token, 'one too many');
      expect(refused.status).to.equal(402);
      expect(refused.headers.get('content-type')).to.match(PROBLEM);
      expect(refused.body.type).to.equal('urn:connector:problem:credit-budget-exhausted');
      const resetsAt = nextUtcMidnight(sentAt);
      expect(refused.body.detail).to.include(resetsAt);
      const retryAfter = Number(refused.headers.get('retry-after'));
      const expected = (Date.parse(resetsAt) - sentAt) / 1000;
      expect(retryAfter).to.be.within(Math.floor(expected) - 5, Math.ceil(expected) + 1);
      const me = await c.call('GET', '/v1/me', { token });
      expect(me.body.daily_budget).to.deep.equal({ limit: LIMIT, spent: LIMIT, remaining: 0, resets_at: resetsAt });
    });

    it('over the cap, retries of accepted jobs (sequential and concurrent) still return those jobs, charging nothing', async () => {
      const token = await c.link(newSubject());
      const keys = Array.from({ length: LIMIT }, () => newKey());
      const accepted: CallResult[] = [];
      for (const key of keys) accepted.push(await submitPrompt(c, token, `kept ${key}`, { key }));
      expect((await submitPrompt(c, token, 'over')).status).to.equal(402);
      const retries = await Promise.all(
        keys.flatMap((key) => [submitPrompt(c, token, `kept ${key}`, { key }), submitPrompt(c, token, `kept ${key}`, { key })]),
      );
      retries.forEach((retry, i) => {
        expect(retry.status).to.equal(202);
        expect(retry.headers.get('idempotent-replayed')).to.equal('true');
        expect(retry.body.id).to.equal(accepted[Math.floor(i / 2)].body.id);
      });
      expect((await c.call('GET', '/v1/me', { token })).body.usage.credits_spent).to.equal(LIMIT);
    });

    it('a refused key is not recorded: sending it again with another payload is 402 again, not 422', async () => {
      const token = await c.link(newSubject());
      for (let i = 0; i < LIMIT; i++) await submitPrompt(c, token, `paid ${i}`);
      const key = newKey();
      expect((await submitPrompt(c, token, 'first try', { key })).status).to.equal(402);
      expect((await submitPrompt(c, token, 'another payload', { key })).status).to.equal(402);
    });

    it(`a job priced above the whole limit (${LIMIT + 2} credits) is 402 price-exceeds-daily-limit without Retry-After, on a fresh budget, charging nothing`, async () => {
      const token = await c.link(newSubject());
      const refused = await c.call('POST', '/v1/orders', {
        token,
        body: { input: { items: LIMIT + 2 } },
        headers: { 'idempotency-key': newKey() },
      });
      expect(refused.status, refused.text).to.equal(402);
      expect(refused.headers.get('content-type')).to.match(PROBLEM);
      expect(refused.body.type).to.equal('urn:connector:problem:price-exceeds-daily-limit');
      expect(refused.body.detail).to.contain(`costs ${LIMIT + 2} credits, more than the daily limit of ${LIMIT} credits`);
      expect(refused.headers.get('retry-after')).to.equal(null);
      // At the limit exactly it fits a fresh day's budget.
      const fits = await c.call('POST', '/v1/orders', {
        token,
        body: { input: { items: LIMIT } },
        headers: { 'idempotency-key': newKey() },
      });
      expect(fits.status, fits.text).to.equal(202);
      expect((await c.call('GET', '/v1/me', { token })).body.usage).to.deep.equal({
        jobs_charged: 1,
        credits_spent: LIMIT,
        credits_refunded: 0,
      });
    });

    it('the budget is per subject: another subject still has its whole budget', async () => {
      const spender = await c.link(newSubject());
      for (let i = 0; i < LIMIT; i++) await submitPrompt(c, spender, `paid ${i}`);
      expect((await submitPrompt(c, spender, 'over')).status).to.equal(402);
      const other = await c.link(newSubject());
      expect((await submitPrompt(c, other, 'mine')).status).to.equal(202);
      expect((await c.call('GET', '/v1/me', { token: other })).body.daily_budget).to.include({ spent: 1, remaining: LIMIT - 1 });
    });
  });

  describe(`no daily credit budget by default [${backend}]`, () => {
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(backend);
    });
    after(async () => c.close());

    it('without DAILY_CREDIT_LIMIT, /v1/me shows daily_budget null and jobs are not capped', async () => {
      const token = await c.link(newSubject());
      for (let i = 0; i < 5; i++) {
        const res = await submitPrompt(c, token, `p${i}`);
        expect(res.status).to.equal(202);
      }
      const me = await c.call('GET', '/v1/me', { token });
      expect(me.body.daily_budget).to.equal(null);
      expect(me.body.usage.credits_spent).to.equal(5);
    });
  });
}
