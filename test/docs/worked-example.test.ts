import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { gptActionsRules } from '../../doctor/gpt-actions-rules';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import { cancelText, modelDescription } from '../../shared/contract/operations/model-description';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS, publishedOperations } from '../../shared/contract/operations/registry';
import { meetsRegistryRules, registryProblems } from '../../shared/contract/operations/registry-rules';
import { requestBodySchema } from '../../shared/contract/operations/registry-schemas';
import { PartialResultError } from '../../shared/domain/jobs/partial-result';
import { buildProcessors, type PaidJob, paidJob } from '../../shared/domain/jobs/processor';
import { BACKENDS } from '../support/backends';
import { withOperations } from '../support/extra-operations';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { callOk, connectMcp, OutputChecker } from '../support/mcp-client';
import { REPORT_PUBLISHED_COST, REPORT_STATEMENT as STATEMENT } from '../support/report-price';
import { portabilityFindings } from '../support/schema-portability';
import { loadWorkedExample, WORKED_EXAMPLE_PAGE } from './support/worked-example';

const TOPIC = 'tides';

// That the printed blocks type-check is test/docs/printed-example-types.test.ts's, in one program with the variants.
describe('the worked example of docs/building-operations.md (a free quote and a paid report)', function () {
  this.timeout(60_000);
  let example: ReturnType<typeof loadWorkedExample>;
  let quote: Operation;
  let report: Operation;
  let brief: Operation;
  let quotes: ReadonlyArray<{ text: string; author: string }>;
  before(() => {
    example = loadWorkedExample();
    const byId = new Map(example.operations.map((operation) => [operation.operationId, operation]));
    expect([...byId.keys()]).to.deep.equal(['getRandomQuote', 'createReport', 'draftBrief']);
    quote = byId.get('getRandomQuote')!;
    report = byId.get('createReport')!;
    brief = byId.get('draftBrief')!;
    quotes = example.exportsOf('shared/domain/quotes/quotes.ts').QUOTES as typeof quotes;
  });
  after(() => example?.cleanup());

  it('fits the GPT Actions rules of connector-doctor, and its MCP tools have portable schemas', () => {
    const document = JSON.parse(
      JSON.stringify(
        buildOpenApiDocument(
          // The shipped operations that break a registry rule are named by its test; the guide's own must not.
          publishedOperations(withOperations(OPERATIONS, example.operations).filter(meetsRegistryRules)),
          'https://connector.example.com',
        ),
      ),
    );
    expect(registryProblems(example.operations)).to.deep.equal([]);
    expect(document.paths['/v1/reports'].post.operationId).to.equal('createReport');
    expect(document.paths['/v1/quotes/random'].get.operationId).to.equal('getRandomQuote');
    // The placeholder listThings is left out: a page of 100 things with 2,000-character notes is over the size
    // rule's 100,000 characters, which it warns of whatever the example adds.
    delete document.paths['/v1/things'];
    const failed = gptActionsRules(document).filter((result) => result.status !== 'PASS');
    expect(failed).to.deep.equal([]);
    expect(portabilityFindings(requestBodySchema(report)!)).to.deep.equal([]);
    expect(portabilityFindings(requestBodySchema(brief)!)).to.deep.equal([]);
  });

  it('the report publishes the sections written so far after each page, within its declared partial schema; a value outside it is refused naming the operation', async () => {
    const reportJob = example.exportsOf('shared/domain/processors/write-report.ts').reportJob as PaidJob;
    const processor = buildProcessors([reportJob]).get('createReport')!;
    const published: Array<Record<string, any>> = [];
    const context = { jobId: 'job_x', attempt: 1, signal: new AbortController().signal, progress: () => {}, emit: async () => {} };
    const result = await processor({ topic: TOPIC, pages: 3 }, { ...context, partial: (value) => void published.push(value) });
    expect(published.map((partial) => partial.pages_written)).to.deep.equal([1, 2, 3]);
    expect(published.map((partial) => partial.sections.length)).to.deep.equal([1, 2, 3]);
    expect(published[2].sections).to.deep.equal((result as Record<string, unknown>).sections);
    const wrong = paidJob({
      ...reportJob,
      operationId: 'createReport',
      processor:
        () =>
        async (_input, { partial }) => {
          partial({ pages_written: 9 } as never);
          return {};
        },
    });
    const refused = await buildProcessors([wrong]).get('createReport')!(
      { topic: TOPIC, pages: 1 },
      { ...context, partial: () => {} },
    ).catch((error: Error) => error);
    expect(refused)
      .to.be.instanceOf(PartialResultError)
      .and.have.property('message')
      .that.match(/^createReport: a partial result must fit its declared schema/);
  });

  for (const backend of BACKENDS) {
    describe(`on the ${backend} backend`, () => {
      let c: ConnectorUnderTest;
      before(async () => {
        c = await startConnector(backend, { PLACEHOLDER_JOB_MS: '10' }, { operations: withOperations(OPERATIONS, example.operations) });
      });
      after(async () => c?.close());

      const order = (token: string, input: Record<string, unknown>, key?: string) =>
        c.call('POST', '/v1/reports', { token, body: { input }, headers: key === undefined ? {} : { 'idempotency-key': key } });

      it('both are published in /openapi.json and /llms.txt with their descriptions verbatim; the report states its price rule, the quote is free', async () => {
        const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
        const composed = `${report.description} Costs ${STATEMENT}. ${cancelText('progress')}`;
        expect(document.paths['/v1/reports'].post.description).to.equal(composed);
        expect(modelDescription(report)).to.equal(composed);
        expect(document.paths['/v1/reports'].post['x-cost']).to.deep.equal(REPORT_PUBLISHED_COST);
        expect(document.paths['/v1/quotes/random'].get.description).to.equal(quote.description);
        expect(document.paths['/v1/quotes/random'].get['x-cost']).to.equal(undefined);
        const llms = await (await fetch(`${c.baseUrl}/llms.txt`)).text();
        expect(llms).to.contain(modelDescription(report)).and.to.contain(quote.description);
        expect(llms).to.contain(`- Cost: ${STATEMENT}, charged once when the job is accepted.`);
        // What the page says they print, as it prints it.
        const page = readFileSync(WORKED_EXAMPLE_PAGE, 'utf8').replace(/\s+/g, ' ');
        const printed = /publishes the rule as `x-cost` `(\{[^`]+\})`/.exec(page);
        expect(printed, 'the x-cost the page shows').to.not.equal(null);
        expect(JSON.parse(printed![1])).to.deep.equal(document.paths['/v1/reports'].post['x-cost']);
        const line = /`\/llms.txt` adds "(Cost: [^"]+)"/.exec(page);
        expect(line, 'the cost line the page quotes').to.not.equal(null);
        expect(llms.replace(/\s+/g, ' ')).to.contain(`- ${line![1]}.`);
      });

      it('the brief publishes its combined rule as the page prints it, takes its input as the whole body, and a deep brief of 3 sources is charged 9, once per key, over REST and MCP', async () => {
        const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
        const operation = document.paths['/v1/briefs'].post;
        const page = readFileSync(WORKED_EXAMPLE_PAGE, 'utf8').replace(/\s+/g, ' ');
        const printed = /publishes the combined rule as `x-cost` `(\{[^`]+\})`/.exec(page);
        expect(printed, 'the x-cost the page shows').to.not.equal(null);
        expect(JSON.parse(printed![1])).to.deep.equal(operation['x-cost']);
        expect(operation.requestBody.content['application/json'].schema.properties).to.have.all.keys('topic', 'depth', 'sources');
        const token = await c.link(newSubject());
        const input = { topic: TOPIC, depth: 'deep', sources: ['https://example.com/a', 'https://example.com/b', 'https://example.com/c'] };
        const key = newKey();
        const first = await c.call('POST', '/v1/briefs', { token, body: input, headers: { 'idempotency-key': key } });
        expect(first.status, first.text).to.equal(202);
        expect(first.body).to.include({ operation: 'draftBrief', cost: 9 });
        const job = await pollJob(c, token, first.body.id, inStatus('succeeded', 'failed'));
        expect(job.result.notes).to.have.length(3);
        const other = await c.call('POST', '/v1/briefs', {
          token,
          body: { ...input, depth: 'quick' },
          headers: { 'idempotency-key': key },
        });
        expect(other.status).to.equal(422);
        const byQuery = await c.call('POST', `/v1/briefs?idempotency_key=${key}`, { token, body: input });
        expect(byQuery.body.id).to.equal(first.body.id);
        const client = await connectMcp(`${c.baseUrl}/mcp`, token, '2026-07-28');
        try {
          const { tools } = await client.listTools();
          const tool = tools.find((candidate) => candidate.name === 'draft_brief')!;
          expect(tool.inputSchema.required).to.have.members(['idempotency_key', 'topic', 'depth', 'sources']);
          const again = await callOk(client, new OutputChecker(tools), 'draft_brief', { ...input, idempotency_key: key });
          expect(again.id).to.equal(first.body.id);
        } finally {
          await client.close();
        }
        expect((await c.call('GET', '/v1/me', { token })).body.usage).to.include({ jobs_charged: 1, credits_spent: 9 });
      });

      it('the quote answers 200 with one of the quotes and charges nothing', async () => {
        const token = await c.link(newSubject());
        const res = await c.call('GET', '/v1/quotes/random', { token });
        expect(res.status, res.text).to.equal(200);
        expect(quotes).to.deep.include(res.body);
        expect((await c.call('GET', '/v1/me', { token })).body.usage).to.deep.equal({
          jobs_charged: 0,
          credits_spent: 0,
          credits_refunded: 0,
        });
      });

      it('a 3-page report is charged 6 and succeeds with 3 sections; a retry with the key is the same job, replayed, charged once', async () => {
        const token = await c.link(newSubject());
        const input = { topic: TOPIC, pages: 3 };
        const first = await order(token, input, 'report-1');
        expect(first.status, first.text).to.equal(202);
        expect(first.body).to.include({ operation: 'createReport', cost: 6 });
        const job = await pollJob(c, token, first.body.id, inStatus('succeeded', 'failed'));
        expect(job.status).to.equal('succeeded');
        expect(job.result.topic).to.equal(TOPIC);
        expect(job.progress).to.include({ percent: 100, message: 'Page 3 of 3 written.' });
        expect(job.partial, 'the result replaces the sections written so far').to.equal(null);
        const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
        expect(JSON.stringify(document.components.schemas.Job.properties.partial)).to.include('"pages_written"');
        expect(job.result.sections.map((section: { heading: string }) => section.heading)).to.deep.equal([
          'tides: part 1',
          'tides: part 2',
          'tides: part 3',
        ]);
        const again = await order(token, input, 'report-1');
        expect(again.status).to.equal(202);
        expect(again.body.id).to.equal(first.body.id);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        const me = await c.call('GET', '/v1/me', { token });
        expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 6, credits_refunded: 0 });
      });

      it('the same key with another input is a 422, no key or 6 pages a 400, a topic without words a failed job with the JobError message', async () => {
        const token = await c.link(newSubject());
        const key = newKey();
        expect((await order(token, { topic: TOPIC, pages: 1 }, key)).status).to.equal(202);
        expect((await order(token, { topic: TOPIC, pages: 2 }, key)).status).to.equal(422);
        expect((await order(token, { topic: TOPIC, pages: 1 })).status).to.equal(400);
        expect((await order(token, { topic: TOPIC, pages: 6 }, newKey())).status).to.equal(400);
        const noWords = await order(token, { topic: '12 + 30', pages: 1 }, newKey());
        expect(noWords.status).to.equal(202);
        const failed = await pollJob(c, token, noWords.body.id, inStatus('succeeded', 'failed'));
        expect(failed).to.include({ status: 'failed', attempts: 1 });
        expect(failed.error).to.deep.equal({ message: 'The topic has no words to write about.' });
      });

      it('over MCP: both tools are listed, create_report with the key required and its price in the description, and a call with the REST key returns the same job', async () => {
        const token = await c.link(newSubject());
        const key = newKey();
        const input = { topic: TOPIC, pages: 2 };
        const rest = await order(token, input, key);
        const client = await connectMcp(`${c.baseUrl}/mcp`, token, '2026-07-28');
        try {
          const { tools } = await client.listTools();
          const tool = tools.find((candidate) => candidate.name === 'create_report')!;
          expect(tool.inputSchema.required).to.have.members(['input', 'idempotency_key']);
          expect(tool.description).to.equal(modelDescription(report));
          expect([...portabilityFindings(tool.inputSchema), ...portabilityFindings(tool.outputSchema)]).to.deep.equal([]);
          const checker = new OutputChecker(tools);
          const job = await callOk(client, checker, 'create_report', { input, idempotency_key: key });
          expect(job.id).to.equal(rest.body.id);
          expect(quotes).to.deep.include(await callOk(client, checker, 'get_random_quote', {}));
        } finally {
          await client.close();
        }
        expect((await c.call('GET', '/v1/me', { token })).body.usage.credits_spent).to.equal(4);
      });
    });
  }
});
