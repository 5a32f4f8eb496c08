import { expect } from 'chai';
import * as z from 'zod';
import { cancelText, modelDescription } from '../../shared/contract/operations/model-description';
import { paidOperation } from '../../shared/contract/operations/paid-operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { fixedPrice, type PerUnitPrice, perUnit } from '../../shared/domain/jobs/price';
import { paidJob } from '../../shared/domain/jobs/processor';
import { BACKENDS } from '../support/backends';
import { withOperations } from '../support/extra-operations';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { connectMcp } from '../support/mcp-client';
import { REPORT_PUBLISHED_COST, REPORT_STATEMENT as STATEMENT } from '../support/report-price';

const LIMIT = 10;
const DESCRIPTION = 'Drafts a report on a topic, 1 to 5 pages, charged once when accepted: ask the person first.';

/** A paid operation priced by its input, as the guide's report: 2 credits per page, 1 to 5 pages. */
function reportOperation(price: PerUnitPrice<'pages'>) {
  return paidOperation({
    job: paidJob({
      operationId: 'draftReport',
      input: z.strictObject({ topic: z.string().min(1).max(200), pages: z.int().min(1).max(5) }),
      processor: () => async (input) => ({ sections: input.pages }),
    }),
    path: '/v1/reports',
    summary: 'Draft a report (2 credits per page)',
    description: DESCRIPTION,
    price,
    noun: 'report',
  });
}

for (const backend of BACKENDS) {
  describe(`a price computed from the input, DAILY_CREDIT_LIMIT=${LIMIT} [${backend}]`, () => {
    // Mutable on purpose: a test changes the rule after a job is accepted to show a replay keeps the stored cost.
    const rule: { -readonly [K in keyof PerUnitPrice<'pages'>]: PerUnitPrice<'pages'>[K] } = perUnit({
      credits: 2,
      unit: 'page',
      field: 'pages',
      min: 1,
      max: 5,
    });
    let c: ConnectorUnderTest;
    before(async () => {
      c = await startConnector(
        backend,
        { DAILY_CREDIT_LIMIT: String(LIMIT), PLACEHOLDER_JOB_MS: '10' },
        { operations: withOperations(OPERATIONS, [reportOperation(rule)]) },
      );
    });
    afterEach(() => {
      rule.credits = 2;
    });
    after(async () => c?.close());

    const order = (token: string, pages: number, key: string) =>
      c.call('POST', '/v1/reports', { token, body: { input: { topic: 'tides', pages } }, headers: { 'idempotency-key': key } });
    const spent = async (token: string) => (await c.call('GET', '/v1/me', { token })).body.usage;

    it('/openapi.json, /llms.txt and tools/list state the rule and its range for the report once, and the fixed-price placeholder exactly as before', async () => {
      const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
      const report = document.paths['/v1/reports'].post;
      expect(report['x-cost']).to.deep.equal(REPORT_PUBLISHED_COST);
      expect(document.paths['/v1/jobs'].post['x-cost']).to.deep.equal({
        kind: 'fixed',
        credits: 1,
        text: 'Costs 1 credit.',
        min: 1,
        max: 1,
        cancel_charge: 'progress',
      });
      // The report's own text does not state the rule: the composition appends its sentence, once, then the cancel's.
      expect(report.description).to.equal(`${DESCRIPTION} Costs ${STATEMENT}. ${cancelText('progress')}`);
      const llms = await (await fetch(`${c.baseUrl}/llms.txt`)).text();
      expect(llms).to.contain(`\n\n${report.description}\n`);
      expect(llms).to.contain(`- Cost: ${STATEMENT}, charged once when the job is accepted.`);
      expect(llms).to.contain('- Cost: 1 credit, charged once when the job is accepted.');
      const client = await connectMcp(`${c.baseUrl}/mcp`, await c.link(newSubject()), '2026-07-28');
      try {
        const { tools } = await client.listTools();
        expect(tools.find((tool) => tool.name === 'draft_report')!.description).to.equal(report.description);
        const placeholder = OPERATIONS.find((operation) => operation.operationId === 'createJob')!;
        expect(tools.find((tool) => tool.name === 'create_job')!.description).to.equal(modelDescription(placeholder));
        expect(document.paths['/v1/jobs'].post.description).to.equal(modelDescription(placeholder));
      } finally {
        await client.close();
      }
    });

    it('each accepted report is charged exactly 2 credits per page (1 to 5 pages: 2, 4, 6, 8, 10), shown as the job cost', async () => {
      for (const pages of [1, 2, 3, 4, 5]) {
        const token = await c.link(newSubject());
        const accepted = await order(token, pages, newKey());
        expect(accepted.status, accepted.text).to.equal(202);
        expect(accepted.body.cost, `${pages} pages`).to.equal(2 * pages);
        expect(await spent(token)).to.deep.equal({ jobs_charged: 1, credits_spent: 2 * pages, credits_refunded: 0 });
      }
    });

    it('a report of 0 or 6 pages is refused with 400 and nothing is charged', async () => {
      const token = await c.link(newSubject());
      for (const pages of [0, 6]) expect((await order(token, pages, newKey())).status).to.equal(400);
      expect(await spent(token)).to.deep.equal({ jobs_charged: 0, credits_spent: 0, credits_refunded: 0 });
    });

    it(`the daily cap counts the computed price: 4 pages (8) accepted, then 2 pages (4) refused with 402, then 1 page (2) accepted, ${LIMIT} spent`, async () => {
      const token = await c.link(newSubject());
      expect((await order(token, 4, newKey())).status).to.equal(202);
      const refused = await order(token, 2, newKey());
      expect(refused.status).to.equal(402);
      expect(refused.body.type).to.equal('urn:connector:problem:credit-budget-exhausted');
      expect((await order(token, 1, newKey())).status).to.equal(202);
      expect(await spent(token)).to.deep.equal({ jobs_charged: 2, credits_spent: LIMIT, credits_refunded: 0 });
    });

    it('a replay is the same job at its stored cost, uncharged, even after the rule changed; a new key pays the new rule', async () => {
      const token = await c.link(newSubject());
      const key = newKey();
      const first = await order(token, 3, key);
      expect(first.body.cost).to.equal(6);
      rule.credits = 3;
      const again = await order(token, 3, key);
      expect(again.status).to.equal(202);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(again.body).to.include({ id: first.body.id, cost: 6 });
      expect(await spent(token)).to.deep.equal({ jobs_charged: 1, credits_spent: 6, credits_refunded: 0 });
      expect((await order(token, 1, newKey())).body.cost).to.equal(3);
      expect(await spent(token)).to.deep.equal({ jobs_charged: 2, credits_spent: 9, credits_refunded: 0 });
    });
  });
}

describe('the placeholder createJob with a fixed price', () => {
  it('is declared with fixedPrice(1) through the builder', () => {
    const createJob = OPERATIONS.find((operation) => operation.operationId === 'createJob')!;
    expect(createJob.price).to.deep.equal(fixedPrice(1));
  });
});
