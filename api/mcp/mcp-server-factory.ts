import { Server, type McpRequestContext, type Tool } from '@modelcontextprotocol/server';
import { SERVICE_INFO } from '../../shared/description/service-info';
import type { Job } from '../../shared/jobs/job';
import type { McpCaller, McpDependencies } from './mcp-context';
import { callTool, compileArgumentChecks, jsonResult } from './tool-calls';
import { registerTaskHandlers, TASKS_EXTENSION, taskRequested, toCreateTaskResult, TASK_CAPABILITIES } from './job-tasks';

/**
 * Returns the SDK's per-request server factory. Each HTTP request gets a fresh `Server` that knows only the
 * caller it serves; everything durable (things, jobs, charges) lives in the backend, so any replica can
 * answer any request.
 */
export function mcpServerFactory(deps: McpDependencies) {
  const checks = compileArgumentChecks(deps.tools);
  const listed: Tool[] = deps.tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
    ...(tool.operation.async ? { execution: { taskSupport: 'optional' as const } } : {}),
  }));
  // 2026-07-28 dropped `execution.taskSupport`: there the tasks extension is negotiated per request instead.
  const listedModern: Tool[] = listed.map(({ execution: _execution, ...tool }) => tool);

  return (ctx: McpRequestContext): Server => {
    const caller = ctx.authInfo?.extra?.caller as McpCaller | undefined;
    if (!caller) throw new Error('the MCP route must authenticate before the server is built');
    const modern = ctx.era === 'modern';
    const server = new Server(
      { name: SERVICE_INFO.name, version: SERVICE_INFO.version },
      {
        capabilities: modern ? { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } : { tools: {}, ...TASK_CAPABILITIES },
        instructions: SERVICE_INFO.summary,
      },
    );
    server.setRequestHandler('tools/list', () => ({ tools: modern ? listedModern : listed }));
    server.setRequestHandler('tools/call', async (request, requestCtx) => {
      const outcome = await callTool(deps, checks, caller, request.params.name, request.params.arguments);
      if ('error' in outcome) return outcome.error;
      if (outcome.tool.operation.async && taskRequested(request.params, requestCtx.mcpReq.envelope, modern)) {
        return toCreateTaskResult(outcome.body as Job, deps.taskTtlMs, modern) as never;
      }
      return server.projectCallToolResult(jsonResult(outcome.body), outcome.tool.outputSchema);
    });
    registerTaskHandlers(server, deps, caller, modern);
    return server;
  };
}
