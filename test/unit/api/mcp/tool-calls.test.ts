import { ProtocolError } from '@modelcontextprotocol/server';
import { expect } from 'chai';
import type { McpCaller, McpDependencies } from '../../../../api/mcp/mcp-context';
import { callTool, compileArgumentChecks, runCheckedTool, type ToolOutcome } from '../../../../api/mcp/tool-calls';
import type { ToolDefinition } from '../../../../shared/contract/mcp/tool-definitions';

const CALLER = { principal: { subject: 'p', connectionId: 'conn_1', issuedAt: 0, expiresAt: 1 }, requestId: 'req-1' } as McpCaller;

/** A free tool whose handler answers the request it was given, or throws `failure` when set. */
function fakeTool(failure?: Error): ToolDefinition {
  return {
    name: 'get_thing',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false },
    operation: {
      price: undefined,
      handle: async (request: unknown) => {
        if (failure) throw failure;
        return { status: 200, body: { handled: request } };
      },
    },
    toRequest: (args: Record<string, unknown>, principal: { subject: string }) => ({ args, subject: principal.subject }),
  } as unknown as ToolDefinition;
}

/** Dependencies around `tool` that record the metric's labels and the error log's lines. */
function deps(tool: ToolDefinition) {
  const counted: Array<Record<string, string>> = [];
  const logged: unknown[] = [];
  const dependencies = {
    tools: [tool],
    services: {},
    metrics: { mcpToolCalls: { inc: (labels: Record<string, string>) => counted.push(labels) } },
    logger: { error: (fields: unknown) => logged.push(fields) },
    spend: { gate: async () => expect.fail('a free call is not gated'), topUp: () => undefined },
  } as unknown as McpDependencies;
  return { dependencies, counted, logged, checks: compileArgumentChecks([tool]) };
}

/** The JSON-RPC error a call is refused with. */
async function refusal(call: Promise<ToolOutcome>): Promise<ProtocolError> {
  return call.then(
    () => expect.fail('the call ran'),
    (error: unknown) => {
      expect(error).to.be.instanceOf(ProtocolError);
      return error as ProtocolError;
    },
  );
}

describe('tool calls (callTool, runCheckedTool)', () => {
  it('runs a known tool with fitting arguments through its operation, as the caller, and counts it ok', async () => {
    const tool = fakeTool();
    const { dependencies, counted, checks } = deps(tool);
    const outcome = await callTool(dependencies, checks, CALLER, { name: 'get_thing', args: { id: 'thg_1' } });
    expect(outcome).to.deep.equal({ tool, body: { handled: { args: { id: 'thg_1' }, subject: 'p' } } });
    expect(counted).to.deep.equal([{ tool: 'get_thing', outcome: 'ok' }]);
  });

  it('refuses an unknown tool, and arguments that do not fit the input schema, as invalid params counted as errors', async () => {
    const { dependencies, counted, checks } = deps(fakeTool());
    const unknown = await refusal(callTool(dependencies, checks, CALLER, { name: 'no_such_tool', args: {} }));
    expect(unknown.message).to.include('Unknown tool: no_such_tool');
    const unfit = await refusal(callTool(dependencies, checks, CALLER, { name: 'get_thing', args: undefined }));
    expect(unfit.message).to.include('Invalid arguments for get_thing');
    expect(counted).to.deep.equal([
      { tool: 'unknown', outcome: 'error' },
      { tool: 'get_thing', outcome: 'error' },
    ]);
  });

  it('answers a handler that fails unexpectedly with an isError result that hides the cause, and logs the cause', async () => {
    const tool = fakeTool(new Error('secret detail of the failure'));
    const { dependencies, counted, logged } = deps(tool);
    const outcome = await runCheckedTool(dependencies, CALLER, { tool, input: { id: 'thg_1' } });
    expect(outcome).to.have.nested.property('error.isError', true);
    expect(JSON.stringify(outcome)).not.to.include('secret detail');
    expect(logged).to.have.length(1);
    expect(logged[0]).to.deep.include({ req_id: 'req-1', tool: 'get_thing' });
    expect(counted).to.deep.equal([{ tool: 'get_thing', outcome: 'error' }]);
  });
});
