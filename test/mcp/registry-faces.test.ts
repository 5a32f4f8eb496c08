import type { CallToolResult } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import type { Operation } from '../../shared/contract/operations/operation';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { newSubject, startConnector, type ConnectorUnderTest } from '../support/harness';
import { connectMcp, OutputChecker } from '../support/mcp-client';

/** An operation a template user might add: it exists only in this test's registry. */
const echoNote: Operation = {
  operationId: 'echoNote',
  method: 'post',
  path: '/v1/echo',
  summary: 'Echo a note',
  description: 'Repeats the note it is given, for testing that one registry entry reaches every face. Free.',
  auth: 'bearer',
  published: true,
  consequential: false,
  requestBody: {
    type: 'object',
    additionalProperties: false,
    required: ['note'],
    properties: { note: { type: 'string', minLength: 1, maxLength: 50 } },
  },
  responses: {
    200: {
      description: 'The note, with who sent it.',
      schema: { type: 'object', additionalProperties: false, required: ['note', 'subject'], properties: { note: { type: 'string' }, subject: { type: 'string' } } },
    },
  },
  errors: [400, 401, 429, 500],
  handle: async (request) => ({ status: 200, body: { note: request.body.note, subject: request.principal!.subject } }),
};

describe('a registry with one extra operation', function () {
  this.timeout(60_000);
  let connector: ConnectorUnderTest;

  before(async () => {
    connector = await startConnector('memory', {}, { operations: [...OPERATIONS, echoNote] });
  });
  after(async () => connector?.close());

  it('publishes it in /openapi.json, /llms.txt and tools/list, and the tool runs its handler, with no other change', async () => {
    const document = (await (await fetch(`${connector.baseUrl}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
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
