import {
  type CallToolResult,
  type InputRequiredResult,
  isInputRequiredResult,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { ToolDefinition } from '../../shared/contract/mcp/tool-definitions';
import { refuseOverOperationRate } from '../admission/operation-rate';
import { toAppError } from '../http/problem';
import type { McpCaller, McpDependencies } from './mcp-context';
import type { Askable, Gate, GatedCall, Round } from './spend-confirmation';

/** What a request lets the spend confirmation do: ask its client, and read its answers to an earlier round. */
export interface Asking {
  askable: Askable;
  round: Round;
}

/** A client that cannot be asked, and a request that answers nothing: the direct path's and 2025-11-25's. */
export const NOT_ASKING: Asking = { askable: { form: false, url: false }, round: {} };

/** A tool's arguments checked against its input schema, compiled once. */
export type ArgumentCheck = (args: unknown) => { valid: true } | { valid: false; errorMessage: string };

/** Compiles the argument validators of every tool (the same JSON Schemas the REST validator enforces). */
export function compileArgumentChecks(tools: readonly ToolDefinition[]): Map<string, ArgumentCheck> {
  const validator = new AjvJsonSchemaValidator();
  const checks = new Map<string, ArgumentCheck>();
  for (const tool of tools) {
    const check = validator.getValidator(tool.inputSchema);
    checks.set(tool.name, (args) => {
      const outcome = check(args);
      return outcome.valid ? { valid: true } : { valid: false, errorMessage: outcome.errorMessage };
    });
  }
  return checks;
}

/** What running a tool came to: the operation's body, an `isError` result, or a question for the person first. */
export type ToolOutcome =
  | { tool: ToolDefinition; body: unknown }
  | { tool: ToolDefinition; error: CallToolResult }
  | { tool: ToolDefinition; inputRequired: InputRequiredResult };

/** A successful tool result: the operation's JSON as structured content and as text. */
export function jsonResult(body: unknown, isError = false): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as Record<string, unknown>,
    ...(isError ? { isError } : {}),
  };
}

/** One call of a tool as the client sent it: the tool's name, its arguments, and what the request lets it ask. */
export interface ToolCall {
  name: string;
  args: Record<string, unknown> | undefined;
  asking?: Asking;
}

/** A call whose arguments passed the tool's input schema. */
export interface CheckedToolCall {
  tool: ToolDefinition;
  input: Record<string, unknown>;
  asking?: Asking;
}

/** Runs one tool by name: checks its arguments (a JSON-RPC error when they do not fit), then runs it. */
export async function callTool(
  deps: McpDependencies,
  checks: ReadonlyMap<string, ArgumentCheck>,
  caller: McpCaller,
  { name, args, asking = NOT_ASKING }: ToolCall,
): Promise<ToolOutcome> {
  const tool = deps.tools.find((candidate) => candidate.name === name);
  if (!tool) {
    deps.metrics.mcpToolCalls.inc({ tool: 'unknown', outcome: 'error' });
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 64)}`);
  }
  const input = args ?? {};
  const checked = checks.get(tool.name)!(input);
  if (!checked.valid) {
    deps.metrics.mcpToolCalls.inc({ tool: tool.name, outcome: 'error' });
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${checked.errorMessage}`);
  }
  return runCheckedTool(deps, caller, { tool, input, asking });
}

/**
 * Runs a tool whose arguments already passed its input schema: first the person's confirmation of a spend
 * (`spend-confirmation.ts`), then the operation's own handler with the shared services, exactly as the REST
 * route would. Errors of the domain come back as `isError` results carrying the problem's detail (funds
 * short: a client that can open a URL is sent to the top-up page instead); anything unexpected is logged and
 * answered generically.
 */
export async function runCheckedTool(
  deps: McpDependencies,
  caller: McpCaller,
  { tool, input, asking = NOT_ASKING }: CheckedToolCall,
): Promise<ToolOutcome> {
  const call: GatedCall = { tool, input, subject: caller.principal.subject, ...asking };
  try {
    // Before the person is asked anything: a call its operation's own limit refuses is refused at once.
    // An operation without a limit of its own awaits no check: the commonest call stays one await shorter.
    if (tool.operation.limits?.perMinute !== undefined)
      refuseOverOperationRate(tool.operation, await deps.operationRate?.(tool.operation, caller.principal.subject));
    // A free call answering no question is never asked anything: the commonest call awaits no gate.
    const gate = tool.operation.price === undefined && asking.round.responses === undefined ? undefined : await deps.spend.gate(call);
    if (gate && 'answer' in gate) return answered(deps, tool, gate);
    const request = tool.toRequest(input, caller.principal);
    if (caller.usage?.tool === tool.name) request.usage = caller.usage.snapshot;
    const result = await tool.operation.handle(request, deps.services);
    deps.metrics.mcpToolCalls.inc({ tool: tool.name, outcome: 'ok' });
    return { tool, body: result.body };
  } catch (error) {
    const topUp = deps.spend.topUp(call, error);
    if (topUp) return { tool, inputRequired: topUp };
    return failed(deps, caller, tool, error);
  }
}

/** A call answered without running: a question for the person (not yet an outcome), or a refusal. */
function answered(deps: McpDependencies, tool: ToolDefinition, gate: Extract<Gate, { answer: unknown }>): ToolOutcome {
  if (isInputRequiredResult(gate.answer)) return { tool, inputRequired: gate.answer };
  deps.metrics.mcpToolCalls.inc({ tool: tool.name, outcome: 'error' });
  return { tool, error: gate.answer };
}

/** A call whose handler threw: the problem's detail as an `isError` result, anything unexpected logged. */
function failed(deps: McpDependencies, caller: McpCaller, tool: ToolDefinition, error: unknown): ToolOutcome {
  deps.metrics.mcpToolCalls.inc({ tool: tool.name, outcome: 'error' });
  const problem = toAppError(error);
  if (problem.status >= 500 && (problem !== error || (error as Error).cause !== undefined)) {
    deps.logger.error({ req_id: caller.requestId, tool: tool.name, err: error, cause: (error as Error).cause }, 'tool call failed');
  }
  return { tool, error: { content: [{ type: 'text', text: problem.message }], isError: true } };
}
