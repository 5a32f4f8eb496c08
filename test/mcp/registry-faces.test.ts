import type { CallToolResult } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { BACKENDS } from '../support/backends';
import { countWords, EXTENDED_REGISTRY, echoNote, NO_WORDS } from '../support/extra-operations';
import { type ConnectorUnderTest, newKey, newSubject, startConnector } from '../support/harness';
import { inStatus, pollJob } from '../support/job-polling';
import { connectMcp, OutputChecker } from '../support/mcp-client';
import { chargesOf } from '../support/registry-tool-tests';

describe('a registry with a free extra operation', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;

  before(async () => {
    connector = await startConnector('memory', {}, { operations: EXTENDED_REGISTRY.operations });
  });
  after(async () => connector?.close());

  it('publishes echoNote in /openapi.json, /llms.txt and tools/list, and the echo_note tool runs its handler', async () => {
    const document = (await (await fetch(`${connector.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    expect(document.paths['/v1/echo'].post.operationId).to.equal('echoNote');
    const llms = await (await fetch(`${connector.baseUrl}/llms.txt`)).text();
    expect(llms).to.contain('### echoNote: POST /v1/echo');
    expect(llms).to.contain(echoNote.description);
    expect(llms).to.contain('echo_note (echoNote)');

    const subject = newSubject();
    const client = await connectMcp(`${connector.baseUrl}/mcp`, await connector.link(subject), '2026-07-28');
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((candidate) => candidate.name === 'echo_note');
      expect(tool).to.deep.include({ title: 'Echo a note', description: echoNote.description });
      expect(tool!.inputSchema).to.deep.equal({
        type: 'object',
        properties: { note: { type: 'string', minLength: 1, maxLength: 50 } },
        required: ['note'],
        additionalProperties: false,
      });
      expect(tool!.annotations).to.include({ readOnlyHint: false, idempotentHint: false });
      const result = (await client.callTool({ name: 'echo_note', arguments: { note: 'hello' } })) as CallToolResult;
      expect(new OutputChecker(tools).expectValid('echo_note', result)).to.deep.equal({ note: 'hello', subject });
    } finally {
      await client.close();
    }
  });
});

for (const backend of BACKENDS) {
  describe(`a registry with a paid asynchronous extra operation [${backend}]`, function () {
    this.timeout(60_000);
    let connector: ConnectorUnderTest;

    before(async () => {
      connector = await startConnector(backend, {}, { operations: EXTENDED_REGISTRY.operations });
    });
    after(async () => connector?.close());

    it('POST /v1/word-counts is accepted as a job that its own processor completes; a retry with the key is the same job, and its 3 credits are charged once', async () => {
      const subject = newSubject();
      const token = await connector.link(subject);
      const request = { token, body: { input: { text: 'Three short words' } }, headers: { 'idempotency-key': newKey() } };
      const first = await connector.call('POST', '/v1/word-counts', request);
      expect(first.status, first.text).to.equal(202);
      expect(first.body).to.include({ operation: countWords.operationId, cost: 3 });
      expect(await pollJob(connector, token, first.body.id, inStatus('succeeded', 'failed'))).to.deep.include({
        status: 'succeeded',
        result: { words: 3 },
      });
      const again = await connector.call('POST', '/v1/word-counts', request);
      expect(again.status).to.equal(202);
      expect(again.body.id).to.equal(first.body.id);
      expect(again.headers.get('idempotent-replayed')).to.equal('true');
      expect(await chargesOf(connector, subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 3, credits_refunded: 0 });
    });

    it('a text without words ends the job failed with the processor’s JobError message, and the job stays charged (its paid job does not refund failures)', async () => {
      const subject = newSubject();
      const token = await connector.link(subject);
      const accepted = await connector.call('POST', '/v1/word-counts', {
        token,
        body: { input: { text: '12 + 30' }, idempotency_key: newKey() },
      });
      expect(accepted.status, accepted.text).to.equal(202);
      expect(await pollJob(connector, token, accepted.body.id, inStatus('succeeded', 'failed'))).to.deep.include({
        status: 'failed',
        error: { message: NO_WORDS },
      });
      expect(await chargesOf(connector, subject)).to.deep.equal({ jobs_charged: 1, credits_spent: 3, credits_refunded: 0 });
    });
  });
}
