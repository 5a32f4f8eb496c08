import { type CallToolResult, Client, StreamableHTTPClientTransport, type Tool } from '@modelcontextprotocol/client';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import * as z from 'zod/v4';
import { APP_MIME_TYPE, UI_EXTENSION } from '../../shared/contract/cards/app-card';
import { waitFor } from '../testkit/wait-for';

/** The protocol revisions the connector serves: the 2025 handshake one and the 2026 per-request one. */
export type Revision = '2025-11-25' | '2026-07-28';
export const REVISIONS: readonly Revision[] = ['2025-11-25', '2026-07-28'];

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The per-request envelope a 2026-07-28 client sends in `params._meta`: version, client info, capabilities. */
export const MODERN_ENVELOPE = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'connector-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
} as const;

/** One raw `POST /mcp`: lower-case headers (no token) and a JSON body. */
export interface RawMcpCall {
  headers: Record<string, string>;
  body: unknown;
}

/**
 * A 2026-07-28 `tools/call` as a client sends it: the three standard headers and the body with its envelope
 * (`meta` is merged into it). Arguments left undefined are left out of the body.
 */
export function rawToolCall(
  name: string,
  args: Record<string, unknown> | undefined,
  { id = 1 as string | number, meta = {} as Record<string, unknown> } = {},
): RawMcpCall {
  return {
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: {
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name, ...(args === undefined ? {} : { arguments: args }), _meta: { ...MODERN_ENVELOPE, ...meta } },
    },
  };
}

/** What a host that renders MCP Apps declares in its capabilities. */
export const UI_EXTENSION_SETTINGS = { [UI_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } };

/**
 * Connects the real SDK client to `url` (an `/mcp` endpoint) with a bearer token, at one revision; `tasks`
 * (2026-07-28) and `ui` declare those extensions, as a host that speaks them does.
 */
export async function connectMcp(url: string, token: string, revision: Revision, { tasks = false, ui = false } = {}): Promise<Client> {
  const extensions = {
    ...(tasks && revision === '2026-07-28' ? { [TASKS_EXTENSION]: {} } : {}),
    ...(ui ? UI_EXTENSION_SETTINGS : {}),
  };
  const capabilities = Object.keys(extensions).length > 0 ? { extensions } : {};
  const client = new Client(
    { name: 'connector-test', version: '1.0.0' },
    revision === '2026-07-28'
      ? { versionNegotiation: { mode: { pin: revision } }, capabilities: capabilities as never }
      : { capabilities: capabilities as never },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return client;
}

/** Validates every tool result against the `outputSchema` its tool advertises (ajv, JSON Schema 2020-12). */
export class OutputChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ReturnType<Ajv2020['compile']>>();

  constructor(tools: readonly Tool[]) {
    addFormats(this.ajv);
    for (const tool of tools) if (tool.outputSchema) this.validators.set(tool.name, this.ajv.compile(tool.outputSchema));
  }

  /** Asserts a successful result: structured content that fits the schema, and the same JSON as text. */
  expectValid(name: string, result: CallToolResult): Record<string, any> {
    expect(result.isError ?? false, JSON.stringify(result)).to.equal(false);
    const validate = this.validators.get(name);
    expect(validate, `outputSchema of ${name}`).to.not.equal(undefined);
    expect(validate!(result.structuredContent), JSON.stringify(validate!.errors)).to.equal(true);
    const text = result.content.find((block) => block.type === 'text');
    expect(JSON.parse((text as { text: string }).text)).to.deep.equal(result.structuredContent);
    return result.structuredContent as Record<string, any>;
  }
}

/** Calls a tool and returns its validated structured content. */
export async function callOk(
  client: Client,
  checker: OutputChecker,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  return checker.expectValid(name, (await client.callTool({ name, arguments: args })) as CallToolResult);
}

/** Polls `get_job` (as a model is told to) until the job is final. */
export async function pollJobOverMcp(client: Client, checker: OutputChecker, id: string): Promise<Record<string, any>> {
  return waitFor(
    async () => {
      const job = await callOk(client, checker, 'get_job', { id });
      return job.status === 'succeeded' || job.status === 'failed' || job.status === 'canceled' ? job : undefined;
    },
    { what: `job ${id} to finish`, timeoutMs: 20_000 },
  );
}

const LegacyCreateTask = z.object({ task: z.object({ taskId: z.string(), status: z.string() }).passthrough() }).passthrough();
const LegacyTask = z.object({ taskId: z.string(), status: z.string() }).passthrough();
const ToolResult = z
  .object({ content: z.array(z.any()), structuredContent: z.record(z.string(), z.any()).optional(), isError: z.boolean().optional() })
  .passthrough();

/**
 * 2025-11-25 tasks: a task-augmented `tools/call`, then `tasks/get` and `tasks/result`. The SDK client has
 * no typed surface for the task methods (they are 2025 wire vocabulary), so they go through its generic
 * `request()` with the result schemas.
 */
export const legacyTasks = {
  create: (client: Client, name: string, args: Record<string, unknown>) =>
    client.request({ method: 'tools/call', params: { name, arguments: args, task: { ttl: 60_000 } } } as never, LegacyCreateTask),
  get: (client: Client, taskId: string) => client.request({ method: 'tasks/get', params: { taskId } } as never, LegacyTask),
  result: (client: Client, taskId: string) => client.request({ method: 'tasks/result', params: { taskId } } as never, ToolResult),
  cancel: (client: Client, taskId: string) => client.request({ method: 'tasks/cancel', params: { taskId } } as never, LegacyTask),
};

const ModernTask = z.object({ taskId: z.string(), status: z.string(), result: ToolResult.optional() }).passthrough();

/**
 * 2026-07-28 tasks. `tasks/get` goes through the SDK client. A task-shaped answer to `tools/call`
 * (`resultType: "task"`) is rejected by the SDK client's result decoder, so, like the official tasks
 * extension package's raw dispatch, the creating call is posted as one JSON-RPC message with the per-request
 * envelope the SDK would attach.
 */
export const modernTasks = {
  async create(url: string, token: string, name: string, args: Record<string, unknown>): Promise<Record<string, any>> {
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'connector-test', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
    };
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': name,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: envelope } }),
    });
    expect(res.status).to.equal(200);
    const message = (await res.json()) as { result: Record<string, any>; error?: unknown };
    expect(message.error, JSON.stringify(message.error)).to.equal(undefined);
    return message.result;
  },
  get: (client: Client, taskId: string) => client.request({ method: 'tasks/get', params: { taskId } } as never, ModernTask),
  cancel: (client: Client, taskId: string) => client.request({ method: 'tasks/cancel', params: { taskId } } as never, ModernTask),
};

/** A bare `tools/list` POST to `/mcp` with `bearer`, as sent from `address` (through `X-Forwarded-For`). */
export function postToolsListFrom(baseUrl: string, bearer: string, address: string): Promise<Response> {
  return fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: `Bearer ${bearer}`,
      'x-forwarded-for': address,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
  });
}
