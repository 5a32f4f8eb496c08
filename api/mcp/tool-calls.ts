import { ProtocolError, ProtocolErrorCode, type CallToolResult } from '@modelcontextprotocol/server';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/server/validators/ajv';
import type { ToolDefinition } from '../../shared/contract/mcp/tool-definitions';
import { toAppError } from '../http/problem';
import type { McpCaller, McpDependencies } from './mcp-context';

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

/** What running a tool came to: the operation's body, or an `isError` result. */
export type ToolOutcome = { tool: ToolDefinition; body: unknown } | { tool: ToolDefinition; error: CallToolResult };

/** A successful tool result: the operation's JSON as structured content and as text. */
export function jsonResult(body: unknown, isError = false): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as Record<string, unknown>,
    ...(isError ? { isError } : {}),
  };
}

/** Runs one tool by name: checks its arguments (a JSON-RPC error when they do not fit), then runs it. */
export async function callTool(
  deps: McpDependencies,
  checks: ReadonlyMap<string, ArgumentCheck>,
  caller: McpCaller,
  name: string,
  args: Record<string, unknown> | undefined,
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
  return runCheckedTool(deps, caller, tool, input);
}

/**
 * Runs a tool whose arguments already passed its input schema: the operation's own handler with the shared
 * services, exactly as the REST route would. Errors of the domain come back as `isError` results carrying
 * the problem's detail; anything unexpected is logged and answered generically.
 */
export async function runCheckedTool(
  deps: McpDependencies,
  caller: McpCaller,
  tool: ToolDefinition,
  input: Record<string, unknown>,
): Promise<ToolOutcome> {
  try {
    const request = tool.toRequest(input, caller.principal);
    if (caller.usage?.tool === tool.name) request.usage = caller.usage.snapshot;
    const result = await tool.operation.handle(request, deps.services);
    deps.metrics.mcpToolCalls.inc({ tool: tool.name, outcome: 'ok' });
    return { tool, body: result.body };
  } catch (error) {
    deps.metrics.mcpToolCalls.inc({ tool: tool.name, outcome: 'error' });
    const problem = toAppError(error);
    if (problem.status >= 500 && (problem !== error || (error as Error).cause !== undefined)) {
      deps.logger.error({ req_id: caller.requestId, tool: tool.name, err: error, cause: (error as Error).cause }, 'tool call failed');
    }
    return { tool, error: { content: [{ type: 'text', text: problem.message }], isError: true } };
  }
}
