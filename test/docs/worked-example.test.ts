import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { gptActionsRules } from '../../doctor/gpt-actions-rules';
import { buildOpenApiDocument } from '../../shared/contract/description/openapi-document';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS, publishedOperations } from '../../shared/contract/operations/registry';
import { BACKENDS } from '../support/backends';
import { withOperations } from '../support/extra-operations';
import { newKey, newSubject, startConnector, type ConnectorUnderTest } from '../support/harness';
import { callOk, connectMcp, OutputChecker } from '../support/mcp-client';
import { portabilityFindings } from '../support/schema-portability';
import { ROOT } from '../support/spawn-process';
import { waitFor } from '../../testkit/wait-for';
import { loadWorkedExample } from './support/worked-example';

const TEXT = 'The team met on Monday. Sales rose. Two people joined. The office moves in May.';

describe('the worked example of docs/building-operations.md (a new paid operation)', function () {
  this.timeout(60_000);
  let example: ReturnType<typeof loadWorkedExample>;
  let operation: Operation;
  before(() => {
    example = loadWorkedExample();
    operation = example.operation;
  });
  after(() => example?.cleanup());

  it("type-checks against the repository as printed, with the repository's compiler options", function () {
    this.timeout(60_000);
    const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
    // Each block is compiled as the file it names, in its folder, so its imports resolve as they would there.
    const printed = new Map(example.files.map(({ file, code }) => [path.join(ROOT, file), code]));
    const host = ts.createCompilerHost(options);
    const [readFile, fileExists] = [host.readFile.bind(host), host.fileExists.bind(host)];
    host.readFile = (name) => printed.get(name) ?? readFile(name);
    host.fileExists = (name) => printed.has(name) || fileExists(name);
    const program = ts.createProgram([...printed.keys()], { ...options, noEmit: true }, host);
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    expect(diagnostics).to.deep.equal([]);
  });

  it('fits the GPT Actions rules of connector-doctor, and its MCP tool has portable schemas', () => {
    const document = JSON.parse(
      JSON.stringify(buildOpenApiDocument(publishedOperations(withOperations(OPERATIONS, [operation])), 'https://connector.example.com')),
    );
    expect(document.paths[operation.path].post.operationId).to.equal('summariseDocument');
    const failed = gptActionsRules(document).filter((result) => result.status !== 'PASS');
    expect(failed).to.deep.equal([]);
    expect(portabilityFindings(operation.requestBody)).to.deep.equal([]);
  });

  for (const backend of BACKENDS) {
    describe(`on the ${backend} backend`, () => {
      let c: ConnectorUnderTest;
      before(async () => {
        c = await startConnector(backend, { PLACEHOLDER_JOB_MS: '10' }, { operations: withOperations(OPERATIONS, [operation]) });
      });
      after(async () => c?.close());

      const poll = (token: string, id: string) =>
        waitFor(
          async () => {
            const res = await c.call('GET', `/v1/jobs/${id}`, { token });
            return res.body.status === 'succeeded' || res.body.status === 'failed' ? res.body : undefined;
          },
          { what: `job ${id}` },
        );

      it('is published in /openapi.json and /llms.txt, with its description verbatim', async () => {
        const document = (await (await fetch(`${c.baseUrl}/openapi.json`)).json()) as Record<string, any>;
        expect(document.paths['/v1/summaries'].post.description).to.equal(operation.description);
        expect(await (await fetch(`${c.baseUrl}/llms.txt`)).text()).to.contain(operation.description);
      });

      it('a job succeeds with the first sentences; a retry with the key is the same job, replayed, and the cost is charged once', async () => {
        const token = await c.link(newSubject());
        const body = { input: { text: TEXT, sentences: 2 } };
        const first = await c.call('POST', '/v1/summaries', { token, body, headers: { 'idempotency-key': 'summary-1' } });
        expect(first.status, first.text).to.equal(202);
        expect(first.body).to.include({ operation: 'summariseDocument', cost: 2 });
        const job = await poll(token, first.body.id);
        expect(job.status).to.equal('succeeded');
        expect(job.result).to.deep.equal({ summary: 'The team met on Monday. Sales rose.', sentences_kept: 2, sentences_total: 4 });
        const again = await c.call('POST', '/v1/summaries', { token, body, headers: { 'idempotency-key': 'summary-1' } });
        expect(again.status).to.equal(202);
        expect(again.body.id).to.equal(first.body.id);
        expect(again.headers.get('idempotent-replayed')).to.equal('true');
        const me = await c.call('GET', '/v1/me', { token });
        expect(me.body.usage).to.deep.equal({ jobs_charged: 1, credits_spent: 2, credits_refunded: 0 });
      });

      it('the same key with another text is a 422, no key a 400, a text without words a failed job with the JobError message', async () => {
        const token = await c.link(newSubject());
        const key = newKey();
        expect(
          (await c.call('POST', '/v1/summaries', { token, body: { input: { text: TEXT } }, headers: { 'idempotency-key': key } })).status,
        ).to.equal(202);
        expect(
          (await c.call('POST', '/v1/summaries', { token, body: { input: { text: 'Other.' } }, headers: { 'idempotency-key': key } }))
            .status,
        ).to.equal(422);
        expect((await c.call('POST', '/v1/summaries', { token, body: { input: { text: TEXT } } })).status).to.equal(400);
        expect(
          (await c.call('POST', '/v1/summaries', { token, body: { input: { text: '   ' }, idempotency_key: newKey() } })).status,
        ).to.equal(400);
        const noWords = await c.call('POST', '/v1/summaries', {
          token,
          body: { input: { text: '12 + 30 = 42.' }, idempotency_key: newKey() },
        });
        expect(noWords.status).to.equal(202);
        const failed = await poll(token, noWords.body.id);
        expect(failed).to.include({ status: 'failed', attempts: 1 });
        expect(failed.error).to.deep.equal({ message: 'The text has no words to summarise.' });
      });

      it('over MCP: summarise_document is listed with the key required, and a call with the REST key returns the same job', async () => {
        const token = await c.link(newSubject());
        const key = newKey();
        const rest = await c.call('POST', '/v1/summaries', { token, body: { input: { text: TEXT } }, headers: { 'idempotency-key': key } });
        const client = await connectMcp(`${c.baseUrl}/mcp`, token, '2026-07-28');
        try {
          const { tools } = await client.listTools();
          const tool = tools.find((candidate) => candidate.name === 'summarise_document')!;
          expect(tool.inputSchema.required).to.have.members(['input', 'idempotency_key']);
          expect([...portabilityFindings(tool.inputSchema), ...portabilityFindings(tool.outputSchema)]).to.deep.equal([]);
          const job = await callOk(client, new OutputChecker(tools), 'summarise_document', { input: { text: TEXT }, idempotency_key: key });
          expect(job.id).to.equal(rest.body.id);
        } finally {
          await client.close();
        }
        expect((await c.call('GET', '/v1/me', { token })).body.usage.credits_spent).to.equal(2);
      });
    });
  }
});
