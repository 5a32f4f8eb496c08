import type { IncomingHttpHeaders } from 'node:http';
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  classifyInboundRequest,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
} from '@modelcontextprotocol/server';
import type { ToolDefinition } from '../../shared/contract/mcp/tool-definitions';
import { taskRequested } from './job-tasks';
import type { McpCaller, McpDependencies } from './mcp-context';
import { SERVER_INFO } from './mcp-server-factory';
import { askableOf } from './spend-confirmation';
import { inToolCallSpan } from './tool-call-span';
import { type ArgumentCheck, jsonResult, runCheckedTool } from './tool-calls';

/** The revision served directly: the stateless one, where each request carries all of its context. */
export const DIRECT_REVISION = '2026-07-28';

const BODY_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const PARAM_KEYS = new Set(['name', 'arguments', '_meta']);
/** The per-request envelope and nothing else: progress tokens, trace context and the like go to the SDK. */
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO_META_KEY, CLIENT_CAPABILITIES_META_KEY]);

/** A request the direct path serves: its JSON-RPC id, the tool and its arguments, already checked. */
export interface DirectCall {
  id: string | number;
  tool: ToolDefinition;
  input: Record<string, unknown>;
}

/** What a request shows the direct path: its headers and parsed JSON body. */
export interface DirectCandidate {
  headers: IncomingHttpHeaders;
  body: unknown;
}

type PlainObject = Record<string, unknown>;

function isPlainObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function keysWithin(value: PlainObject, allowed: ReadonlySet<string>): boolean {
  for (const key in value) if (!allowed.has(key)) return false;
  return true;
}

/**
 * Recognises the commonest MCP request, a 2026-07-28 `tools/call` that the SDK would serve without a
 * question, so that it can skip the SDK's web-standard request and response objects and its repeated
 * schema parses (why: docs/decisions/mcp-direct-tool-calls.md). A request qualifies only when every
 * check holds: plain JSON; exactly the JSON-RPC members; the three standard headers present and equal to the
 * body; an envelope of only version, client info and capabilities; a tool whose result is an object and
 * that is not asked for a task; arguments that pass the tool's input schema; and the SDK's own classifier
 * calls it a modern request. Anything else returns undefined and goes to the SDK, which answers it (errors
 * included) as before. `test/mcp/mcp-direct-calls.test.ts` requires both paths to answer alike.
 */
export function directCallMatcher(tools: readonly ToolDefinition[], checks: ReadonlyMap<string, ArgumentCheck>) {
  // An object result passes through the 2026-07-28 codec's projection unchanged; other shapes go to the SDK.
  const served = new Map(tools.filter((tool) => tool.outputSchema.type === 'object').map((tool) => [tool.name, tool]));
  const modern = classifierVerdicts();
  return ({ headers, body }: DirectCandidate): DirectCall | undefined => {
    const call = plainToolCall(headers, body);
    const tool = call && served.get(call.name);
    if (!call || !tool || !plainEnvelope(call.params._meta) || !servedDirectly(tool, call.params)) return undefined;
    const input = argumentsOf(call.params);
    // Arguments that do not fit are the SDK's to refuse (its JSON-RPC error); checking them runs nothing.
    if (!input || !checks.get(tool.name)!(input).valid) return undefined;
    // Last, the SDK's own ladder: JSON-RPC shape and id, the envelope's values, header and body agreement.
    if (!modern(call, body as PlainObject)) return undefined;
    return { id: call.id as string | number, tool, input };
  };
}

/** How many verdicts of the SDK's classifier are remembered before the memory is emptied. */
const VERDICTS_KEPT = 256;

/**
 * The SDK's `classifyInboundRequest` for a call that passed the checks above, remembered per envelope. Its
 * zod parses are a fifth of the bytes a direct call allocates, and a client sends the same envelope on every
 * call. For such a call its verdict depends only on the `jsonrpc` member, the id's kind (a string, or an
 * integer it accepts), the tool's name and the `_meta` envelope: the method and the three headers were
 * checked equal to fixed values or to the body, and the JSON-RPC schema looks at no other member of `params`.
 * Those make the key; an id of any other kind, or a `jsonrpc` that is not a string, is classified afresh. Bounded: a client varying its envelope
 * empties the memory, never grows it.
 */
function classifierVerdicts(): (call: { id: unknown; name: string; params: PlainObject }, body: PlainObject) => boolean {
  const verdicts = new Map<string, boolean>();
  const classify = (name: string, body: unknown): boolean => {
    const route = classifyInboundRequest({
      httpMethod: 'POST',
      protocolVersionHeader: DIRECT_REVISION,
      mcpMethodHeader: 'tools/call',
      mcpNameHeader: name,
      body,
    });
    return route.kind === 'modern' && route.messageKind === 'request';
  };
  return ({ id, name, params }, body) => {
    const idKind = typeof id === 'string' ? 's' : Number.isSafeInteger(id) ? 'i' : undefined;
    if (idKind === undefined || typeof body.jsonrpc !== 'string') return classify(name, body);
    const key = JSON.stringify([body.jsonrpc, idKind, name, params._meta]);
    let verdict = verdicts.get(key);
    if (verdict === undefined) {
      verdict = classify(name, body);
      if (verdicts.size >= VERDICTS_KEPT) verdicts.clear();
      verdicts.set(key, verdict);
    }
    return verdict;
  };
}

/**
 * Whether this tool's call can skip the SDK: not a task (the SDK's to create), and not a paid call from a
 * client that can be asked, which may need the person's confirmation.
 */
function servedDirectly(tool: ToolDefinition, params: PlainObject): boolean {
  if (tool.operation.async && taskRequested(params, params._meta as object, true)) return false;
  return !(tool.operation.price !== undefined && declaresElicitation(params._meta));
}

/** A `tools/call` of the direct revision whose JSON-RPC members and standard headers are exactly as expected. */
function plainToolCall(headers: IncomingHttpHeaders, body: unknown): { id: unknown; name: string; params: PlainObject } | undefined {
  if (!isJsonContentType(headers['content-type']) || !isPlainObject(body) || !keysWithin(body, BODY_KEYS)) return undefined;
  const { id, method, params } = body;
  if (method !== 'tools/call' || !isPlainObject(params) || !keysWithin(params, PARAM_KEYS)) return undefined;
  const name = headers['mcp-name'];
  const agreed = headers['mcp-protocol-version'] === DIRECT_REVISION && headers['mcp-method'] === method && params.name === name;
  return agreed && typeof name === 'string' ? { id, name, params } : undefined;
}

/** The per-request envelope of the direct revision and nothing else (progress tokens, trace context: the SDK's). */
function plainEnvelope(envelope: unknown): boolean {
  return isPlainObject(envelope) && keysWithin(envelope, ENVELOPE_KEYS) && envelope[PROTOCOL_VERSION_META_KEY] === DIRECT_REVISION;
}

/** True when the envelope's client capabilities declare elicitation, in any mode. */
function declaresElicitation(envelope: unknown): boolean {
  const { form, url } = askableOf(true, envelope as object);
  return form || url;
}

/** The call's arguments as an object (none: empty), or undefined when they are not an object. */
function argumentsOf(params: PlainObject): Record<string, unknown> | undefined {
  const args = params.arguments;
  if (args === undefined) return {};
  return isPlainObject(args) ? args : undefined;
}

/**
 * Runs a directly served call with the same handler the SDK's `tools/call` runs (its arguments were checked
 * when it was matched), and encodes the result as the SDK encodes a complete 2026-07-28 result: `resultType`
 * and the server's identity in `_meta`.
 */
export async function answerDirectCall(deps: McpDependencies, call: DirectCall, caller: McpCaller): Promise<unknown> {
  // The direct path serves only envelopes without trace context, so its span is the HTTP request's child.
  const outcome = await inToolCallSpan(call.tool.name, undefined, () =>
    runCheckedTool(deps, caller, { tool: call.tool, input: call.input }),
  );
  // A client that cannot be asked is never answered `input_required`, so the outcome is a body or an error.
  const result = 'body' in outcome ? jsonResult(outcome.body) : (outcome as { error: CallToolResult }).error;
  return { result: { ...result, resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: SERVER_INFO } }, jsonrpc: '2.0', id: call.id };
}
