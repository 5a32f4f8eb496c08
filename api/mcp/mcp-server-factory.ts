import { type McpRequestContext, Server, type ServerContext, type ServerOptions, type Tool } from '@modelcontextprotocol/server';
import { SERVICE_INFO } from '../../shared/contract/description/service-info';
import type { Job } from '../../shared/domain/jobs/job';
import type { QuoteCheck } from '../../shared/domain/spend/spend-quote';
import { cardsOf, registerCardResources, UI_EXTENSION_CAPABILITY } from './app-cards';
import { registerTaskHandlers, TASK_CAPABILITIES, TASKS_EXTENSION, taskRequested, toCreateTaskResult } from './job-tasks';
import { callerOf, type McpDependencies } from './mcp-context';
import { askableOf } from './spend-confirmation';
import { inToolCallSpan } from './tool-call-span';
import { type ArgumentCheck, type Asking, callTool, jsonResult, NOT_ASKING } from './tool-calls';
import { callPaidTool, declaresPaymentExtension, PAYMENT_EXTENSION, payableTool } from './x402-tool-call';

/** The server's identity, as every result names it. */
export const SERVER_INFO = { name: SERVICE_INFO.name, version: SERVICE_INFO.version };

/** Idle 2026-07-28 instances kept for reuse: more than a replica serves at once, about 4 KB each. */
const MAX_IDLE_SERVERS = 256;

/**
 * Returns the SDK's per-request server factory. Each HTTP request is served by a `Server` that holds nothing
 * of any caller: everything durable (things, jobs, charges) lives in the backend, so any replica can answer
 * any request. What does not vary by request (tool lists, capabilities, argument checks) is built here once,
 * and the handlers take the caller from each request's context.
 */
export function mcpServerFactory(deps: McpDependencies, checks: ReadonlyMap<string, ArgumentCheck>) {
  const listed: Tool[] = deps.tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema as Tool['inputSchema'],
    outputSchema: tool.outputSchema as Tool['outputSchema'],
    annotations: { title: tool.title, ...tool.annotations },
    ...(tool.operation.async ? { execution: { taskSupport: 'optional' as const } } : {}),
    ...(tool.meta ? { _meta: tool.meta } : {}),
  }));
  const cards = cardsOf(deps.tools);
  // Announced (server/discover) only when x402 takes payments here, so the published capabilities stay as they were otherwise.
  const paymentExtension: Record<string, Record<string, never>> = deps.services.x402 ? { [PAYMENT_EXTENSION]: {} } : {};
  // 2026-07-28 dropped `execution.taskSupport`: there the tasks extension is negotiated per request instead.
  const listedModern: Tool[] = listed.map(({ execution: _execution, ...tool }) => tool);
  const options = (modern: boolean): ServerOptions => ({
    capabilities: modern
      ? { tools: {}, resources: {}, extensions: { [TASKS_EXTENSION]: {}, ...UI_EXTENSION_CAPABILITY, ...paymentExtension } }
      : { tools: {}, resources: {}, ...TASK_CAPABILITIES, extensions: UI_EXTENSION_CAPABILITY },
    instructions: SERVICE_INFO.summary,
    // A quote echoed back is opened here and judged by the tool call, so a bad one is a tool error that says
    // nothing was charged rather than a bare -32602.
    ...(modern ? { requestState: { verify: deps.spend.verify } } : {}),
  });
  const modernOptions = options(true);
  const legacyOptions = options(false);
  const modernTools = { tools: listedModern };
  const legacyTools = { tools: listed };
  // What an agent without a token sees (x402 on): the tools it can pay for, and nothing that acts for a person.
  const payableNames = new Set(deps.tools.filter(payableTool).map((tool) => tool.name));
  const payerTools = (modern: boolean) => ({ tools: (modern ? listedModern : listed).filter((tool) => payableNames.has(tool.name)) });
  const modernPayerTools = payerTools(true);
  const legacyPayerTools = payerTools(false);

  // The registry's own string for a name the client sent, so that a client's free text is never recorded.
  const knownNames = new Map(deps.tools.map((tool) => [tool.name, tool.name]));

  const build = (modern: boolean): Server => {
    // The SDK copies the capabilities it is given, so one options object serves every instance.
    const server = new Server(SERVER_INFO, modern ? modernOptions : legacyOptions);
    server.setRequestHandler('tools/list', (_request, ctx) => {
      if (callerOf(ctx).payer) return modern ? modernPayerTools : legacyPayerTools;
      return modern ? modernTools : legacyTools;
    });
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args, _meta: meta } = request.params as typeof request.params & { _meta?: unknown };
      const known = knownNames.get(name);
      const caller = callerOf(ctx);
      if (caller.payer) {
        const extension = declaresPaymentExtension(modern, ctx.mcpReq.envelope);
        return inToolCallSpan(known, meta, () => callPaidTool(deps, checks, caller, { name, args, meta, extension }));
      }
      const asking = askingOf(ctx, modern);
      const outcome = await inToolCallSpan(known, meta, () => callTool(deps, checks, caller, { name, args, asking }));
      if ('inputRequired' in outcome) return outcome.inputRequired as never;
      if ('error' in outcome) return outcome.error;
      if (outcome.tool.operation.async && taskRequested(request.params, ctx.mcpReq.envelope, modern)) {
        return toCreateTaskResult(outcome.body as Job, deps.taskTtlMs, modern) as never;
      }
      return server.projectCallToolResult(jsonResult(outcome.body), outcome.tool.outputSchema);
    });
    registerTaskHandlers(server, deps, modern);
    registerCardResources(server, cards);
    return server;
  };

  // 2026-07-28 instances are reused once their exchange has closed. The SDK refuses an instance still
  // serving, sets the revision and the request's client capabilities on it for every request, and resets
  // its in-flight state on close; what a request may leave behind (the client info it sent) is read by
  // nothing here; a new instance per call costs CPU, mostly the collector's. The 2025 era keeps a new instance
  // per request: an `initialize` handshake leaves its client's revision and capabilities on the instance.
  const idle: Server[] = [];
  return (ctx: McpRequestContext): Server => {
    // Fail before anything is served when the route forgot to authenticate.
    callerOf({ http: { authInfo: ctx.authInfo } });
    if (ctx.era !== 'modern') return build(false);
    const server = idle.pop() ?? build(true);
    // The SDK chains its own close hook in front of this one, so it runs once the exchange is over.
    server.onclose = () => {
      if (idle.length < MAX_IDLE_SERVERS) idle.push(server);
    };
    return server;
  };
}

/** What a `tools/call` lets the spend confirmation do: ask a 2026-07-28 client, and read its answers to a round. */
function askingOf(ctx: ServerContext, modern: boolean): Asking {
  if (!modern) return NOT_ASKING;
  const responses = ctx.mcpReq.inputResponses;
  const quote = ctx.mcpReq.requestState<QuoteCheck>();
  return {
    askable: askableOf(true, ctx.mcpReq.envelope),
    round: {
      ...(responses && Object.keys(responses).length > 0 ? { responses } : {}),
      ...(quote ? { quote } : {}),
    },
  };
}
