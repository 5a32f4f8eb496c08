import { type CallToolResult, CLIENT_CAPABILITIES_META_KEY, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import type { PaymentPayload } from '@x402/core/types';
import type { ToolDefinition } from '../../shared/contract/mcp/tool-definitions';
import { PaymentRequiredError } from '../../shared/platform/errors/problems';
import { toAppError } from '../http/problem';
import { payForCall } from '../x402/pay-with-x402';
import type { McpCaller, McpDependencies } from './mcp-context';
import { type ArgumentCheck, jsonResult } from './tool-calls';

/** Where an x402 MCP client puts its `PaymentPayload`: the call's `params._meta`. */
export const PAYMENT_META_KEY = 'x402/payment';
/** Where the settlement goes back: the result's `_meta`. */
export const PAYMENT_RESPONSE_META_KEY = 'x402/payment-response';
/** The x402 MCP extension: a 2026-07-28 client that declares it is answered `resultType: "payment_required"`. */
export const PAYMENT_EXTENSION = 'org.x402/payment';
/** The methods an agent without a token may call besides a payable tool: the handshake, the list, liveness. */
const OPEN_METHODS = new Set(['initialize', 'notifications/initialized', 'ping', 'tools/list', 'server/discover']);

/** Whether x402 can pay this tool: a paid operation that runs a job at a price (as over HTTP). */
export function payableTool(tool: ToolDefinition): boolean {
  return tool.operation.job !== undefined && tool.operation.price !== undefined;
}

/**
 * Whether a JSON-RPC body may be served without a bearer token while `X402=on`: the handshake, `tools/list`
 * (answered with the payable tools only) and a `tools/call` of a payable tool. Anything that acts for a person
 * (their things, their jobs, `get_me`) is not, and keeps the 401 pointing to OAuth. A batch is never open.
 */
export function openToPayers(body: unknown, payable: ReadonlySet<string>): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string') return false;
  if (method === 'tools/call') return typeof params?.name === 'string' && payable.has(params.name);
  return OPEN_METHODS.has(method);
}

/**
 * A `tools/call` of an agent without a token: the route let through only payable tools' names; the arguments
 * are checked against the tool's schema as any call's (a JSON-RPC error when they do not fit, via callTool's rules).
 */
export async function callPaidTool(
  deps: McpDependencies,
  checks: ReadonlyMap<string, ArgumentCheck>,
  caller: McpCaller,
  { name, args, meta, extension = false }: { name: string; args: Record<string, unknown> | undefined; meta: unknown; extension?: boolean },
): Promise<CallToolResult> {
  const tool = deps.tools.find((candidate) => candidate.name === name && payableTool(candidate));
  if (!tool) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 64)}`);
  const input = args ?? {};
  const checked = checks.get(tool.name)!(input);
  if (!checked.valid) {
    deps.metrics.mcpToolCalls.inc({ tool: tool.name, outcome: 'error' });
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Invalid arguments for ${tool.name}: ${checked.errorMessage}`);
  }
  return payToolCall(deps, caller, { tool, input, meta, extension });
}

/** Whether a 2026-07-28 request's envelope declares the `org.x402/payment` extension in its client capabilities. */
export function declaresPaymentExtension(modern: boolean, envelope: object | undefined): boolean {
  if (!modern) return false;
  const capabilities = (envelope as Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined)?.[
    CLIENT_CAPABILITIES_META_KEY
  ];
  const extensions = capabilities?.extensions;
  return typeof extensions === 'object' && extensions !== null && PAYMENT_EXTENSION in extensions;
}

/** A payable tool's call by an agent: its arguments (already checked) and the call's `_meta`. */
export interface PaidToolCall {
  tool: ToolDefinition;
  input: Record<string, unknown>;
  meta: unknown;
  /** The client declared `org.x402/payment`: a payment request is the extension's `payment_required` result. */
  extension?: boolean;
}

/**
 * Runs a payable tool for an agent with the HTTP checkout (exactly once, replays, refunds alike). No payment,
 * or a refused one: the x402 MCP tool-result binding, an `isError` result whose `structuredContent` is the
 * `PaymentRequired` for this input and `content[0].text` its JSON. Paid: the tool's result with the settlement
 * and the payer's token (to read, poll and cancel the job) in `_meta["x402/payment-response"]`.
 */
export async function payToolCall(deps: McpDependencies, caller: McpCaller, call: PaidToolCall): Promise<CallToolResult> {
  const { tool, input } = call;
  const request = tool.toRequest(input, caller.principal);
  const url = `mcp://tool/${tool.name}`;
  try {
    const paid = await payForCall({ operation: tool.operation, request, url }, paymentOf(call.meta), deps.services);
    deps.metrics.mcpToolCalls.inc({ tool: tool.name, outcome: 'ok' });
    const response = { ...paid.settlement, payerToken: paid.payerToken };
    return { ...jsonResult(paid.result.body), _meta: { [PAYMENT_RESPONSE_META_KEY]: response } };
  } catch (error) {
    deps.metrics.mcpToolCalls.inc({ tool: tool.name, outcome: 'error' });
    if (error instanceof PaymentRequiredError) return paymentRequiredResult(error.paymentRequired, call.extension === true);
    const problem = toAppError(error);
    if (problem.status >= 500 && problem !== error)
      deps.logger.error({ req_id: caller.requestId, tool: tool.name, err: error }, 'paid tool call failed');
    return { content: [{ type: 'text', text: problem.message }], isError: true };
  }
}

/** The payment in `_meta["x402/payment"]`; anything there that is not an object reads as an empty payload, which the checkout refuses. */
function paymentOf(meta: unknown): PaymentPayload | undefined {
  const payment = (meta as Record<string, unknown> | undefined)?.[PAYMENT_META_KEY];
  if (payment === undefined) return undefined;
  return typeof payment === 'object' && payment !== null ? (payment as PaymentPayload) : ({} as PaymentPayload);
}

/**
 * A `PaymentRequired` (base64 JSON, as HTTP's header carries it) in the binding the client reads: the
 * extension's `payment_required` result, or the tool-result binding.
 */
function paymentRequiredResult(encoded: string, extension: boolean): CallToolResult {
  const required = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Record<string, unknown>;
  if (extension) return { resultType: 'payment_required', paymentRequired: required } as unknown as CallToolResult;
  return { content: [{ type: 'text', text: JSON.stringify(required) }], structuredContent: required, isError: true };
}
