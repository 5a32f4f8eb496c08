import type { Client, Tool } from '@modelcontextprotocol/client';
import { expect } from 'chai';
import { buildToolDefinitions, toolName } from '../../shared/contract/mcp/tool-definitions';
import { modelDescription } from '../../shared/contract/operations/model-description';
import type { Operation } from '../../shared/contract/operations/operation';
import { IDEMPOTENCY_FIELD, jobInputOf } from '../../shared/contract/operations/paid-body';
import { publishedOperations } from '../../shared/contract/operations/registry';
import { priceOf } from '../../shared/domain/jobs/price';
import { waitFor } from '../testkit/wait-for';
import { BASE_ENV, type ConnectorUnderTest, newKey, newSubject } from './harness';
import { paidArguments } from './job-submission';
import { callOk, connectMcp, OutputChecker, REVISIONS } from './mcp-client';
import { portabilityFindings } from './schema-portability';
import { sampleArguments } from './tool-arguments';

/** JSON-RPC "invalid params": unknown tools and arguments that do not fit the input schema. */
export const INVALID_PARAMS = -32602;

/** The JSON-RPC error a call fails with; the test fails when the call succeeds. */
export async function rpcError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; message: string };
  }
  throw new Error('expected a JSON-RPC error');
}

/** A tool name no operation can have: tool names are made of a-z, 0-9 and _. */
const NO_SUCH_TOOL = 'no-such-tool';

/** A subject's charges, as the dashboard reads them (`GET /v1/link/usage`). */
export async function chargesOf(
  connector: ConnectorUnderTest,
  subject: string,
): Promise<{ jobs_charged: number; credits_spent: number; credits_refunded: number }> {
  const res = await connector.call('GET', `/v1/link/usage?subject=${encodeURIComponent(subject)}`, {
    headers: { 'x-link-secret': BASE_ENV.LINK_SECRET },
  });
  expect(res.status, res.text).to.equal(200);
  return { jobs_charged: res.body.jobs_charged, credits_spent: res.body.credits_spent, credits_refunded: res.body.credits_refunded };
}

/**
 * What holds for the MCP tools of any registry, over both protocol revisions. Every expectation is derived
 * from `operations`: nothing here names a tool, so adding an operation to the registry adds its checks.
 */
export function registryToolTests(operations: readonly Operation[], connectorOf: () => ConnectorUnderTest): void {
  const definitions = buildToolDefinitions(publishedOperations(operations));
  const byOperationId = new Map(definitions.map((definition) => [definition.operation.operationId, definition]));

  for (const revision of REVISIONS) {
    describe(`a ${revision} client`, () => {
      let client: Client;
      let tools: Tool[];
      let checker: OutputChecker;
      const toolOf = (name: string): Tool & { execution?: unknown } => {
        const tool = tools.find((candidate) => candidate.name === name);
        expect(tool, `tool ${name}`).to.not.equal(undefined);
        return tool!;
      };

      before(async () => {
        client = await connectMcp(`${connectorOf().baseUrl}/mcp`, await connectorOf().link(newSubject()), revision);
        tools = (await client.listTools()).tools;
        checker = new OutputChecker(tools);
      });
      after(async () => client?.close());

      it('tools/list lists exactly the published operations, in registry order, with their registry names, texts (the composed description, as /openapi.json has it), schemas and annotations', () => {
        expect(tools.map((tool) => tool.name)).to.deep.equal(definitions.map((definition) => definition.name));
        for (const definition of definitions) {
          const tool = toolOf(definition.name);
          expect(tool.name).to.equal(toolName(definition.operation.operationId));
          expect(tool.title).to.equal(definition.operation.summary);
          expect(tool.description).to.equal(modelDescription(definition.operation));
          expect(tool.inputSchema).to.deep.equal(definition.inputSchema);
          expect(tool.outputSchema).to.deep.equal(definition.outputSchema);
          expect(tool.annotations).to.deep.include(definition.annotations);
        }
      });

      it(
        revision === '2025-11-25'
          ? 'every asynchronous tool, and no other, is listed with optional task support'
          : 'no tool is listed with execution (this revision negotiates tasks per request)',
        () => {
          for (const definition of definitions) {
            const expected = revision === '2025-11-25' && definition.operation.async ? { taskSupport: 'optional' } : undefined;
            expect(toolOf(definition.name).execution, definition.name).to.deep.equal(expected);
          }
        },
      );

      it('every tool whose operation names an MCP Apps card (every paid one does) carries its URI in _meta.ui.resourceUri, no other tool does, and resources/list lists exactly those cards', async () => {
        for (const definition of definitions) {
          const card = definition.operation.card?.uri;
          if (definition.operation.price !== undefined) expect(card, definition.name).to.be.a('string');
          expect(
            (toolOf(definition.name)._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri,
            definition.name,
          ).to.equal(card);
        }
        const cards = new Set(definitions.flatMap((definition) => (definition.operation.card ? [definition.operation.card.uri] : [])));
        expect((await client.listResources()).resources.map((resource) => resource.uri)).to.have.members([...cards]);
      });

      it('every paid tool requires an idempotency_key and is annotated idempotent and not read-only; every tool of a GET operation is read-only and idempotent', () => {
        for (const definition of definitions) {
          const tool = toolOf(definition.name);
          if (definition.operation.price !== undefined) {
            expect(tool.inputSchema.required, tool.name).to.include('idempotency_key');
            expect(tool.annotations, tool.name).to.include({ readOnlyHint: false, idempotentHint: true });
          }
          if (definition.operation.method === 'get')
            expect(tool.annotations, tool.name).to.include({ readOnlyHint: true, idempotentHint: true });
        }
      });

      it('every tool’s input and output schemas are portable (no finding under the MCP Inspector --strict rules)', () => {
        const findings = tools.flatMap((tool) => [
          ...portabilityFindings(tool.inputSchema).map((finding) => ({ tool: tool.name, schema: 'inputSchema', ...finding })),
          ...portabilityFindings(tool.outputSchema).map((finding) => ({ tool: tool.name, schema: 'outputSchema', ...finding })),
        ]);
        expect(findings).to.deep.equal([]);
      });

      it('every tool refuses an unknown argument and, when it has required ones, an empty call; an unknown tool is refused too: each a JSON-RPC invalid-params error', async () => {
        for (const tool of tools) {
          const unknown = await rpcError(
            client.callTool({ name: tool.name, arguments: { ...sampleArguments(tool.inputSchema), not_an_argument: true } }),
          );
          expect(unknown.code, `${tool.name}: ${unknown.message}`).to.equal(INVALID_PARAMS);
          if (((tool.inputSchema.required as string[] | undefined) ?? []).length === 0) continue;
          const empty = await rpcError(client.callTool({ name: tool.name, arguments: {} }));
          expect(empty.code, `${tool.name}: ${empty.message}`).to.equal(INVALID_PARAMS);
        }
        const noSuchTool = await rpcError(client.callTool({ name: NO_SUCH_TOOL, arguments: {} }));
        expect(noSuchTool.code).to.equal(INVALID_PARAMS);
      });

      it('every paid tool, called twice with its job’s example input (else arguments from its schema) and one fresh key, answers the same job of its operation at its cost, charged once, which its poll tool reads to a final state (succeeded for the example)', async () => {
        for (const definition of definitions.filter((candidate) => candidate.operation.price !== undefined)) {
          const { operationId, price, async, job: paid } = definition.operation;
          const subject = newSubject();
          const own = await connectMcp(`${connectorOf().baseUrl}/mcp`, await connectorOf().link(subject), revision);
          try {
            // A valid input need not succeed (a processor may refuse what only the work can tell): the example does.
            const example = paid?.example;
            const sample = example === undefined ? sampleArguments(definition.inputSchema) : paidArguments(definition.operation, example);
            const args = { ...sample, idempotency_key: newKey() };
            // The charge is the operation's rule applied to the input sent, wherever its body shape puts it.
            const { [IDEMPOTENCY_FIELD]: _key, ...body } = sample;
            const cost = priceOf(price!, jobInputOf(definition.operation, body));
            const job = await callOk(own, checker, definition.name, args);
            expect(job, definition.name).to.include({ operation: operationId, cost });
            expect((await callOk(own, checker, definition.name, args)).id, definition.name).to.equal(job.id);
            expect(await chargesOf(connectorOf(), subject), definition.name).to.deep.equal({
              jobs_charged: 1,
              credits_spent: cost,
              credits_refunded: 0,
            });
            if (!async) continue;
            const poll = byOperationId.get(async.pollOperationId)!;
            const required = poll.inputSchema.required as string[];
            expect(required, `${poll.name} takes the job id`).to.have.length(1);
            const final = await waitFor(
              async () => {
                const read = await callOk(own, checker, poll.name, { [required[0]]: job.id });
                return read.status === 'succeeded' || read.status === 'failed' ? read : undefined;
              },
              { what: `${definition.name}'s job ${job.id} to end`, timeoutMs: 20_000 },
            );
            expect(final, definition.name).to.include({ id: job.id, operation: operationId });
            if (example !== undefined) expect(final.status, `${definition.name}: ${JSON.stringify(final.error)}`).to.equal('succeeded');
          } finally {
            await own.close();
          }
        }
      });
    });
  }
}
