import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { toolName } from '../shared/contract/mcp/tool-definitions';
import { allOf, type CheckResult, fail, pass, warn } from './check-result';
import { type DoctorContext, documentOperations } from './context';
import { describeError } from './target';

/** The two protocol revisions the contract promises: the 2025 handshake and the 2026 per-request era. */
export const LEGACY_REVISION = '2025-11-25';
export const MODERN_REVISION = '2026-07-28';
/** Longest tool name Claude and ChatGPT accept. */
export const MAX_TOOL_NAME = 64;

type Tool = { name: string; description?: string };

/**
 * `/mcp` as Claude and ChatGPT apps meet it: a 401 that points at the protected-resource metadata, then,
 * with a token, a 2025-11-25 initialize and a 2026-07-28 request that both list the OpenAPI operations as tools.
 */
export async function mcpChecks(ctx: DoctorContext, timeoutMs: number): Promise<CheckResult[]> {
  const results = [await unauthorized(ctx)];
  if (!ctx.token) {
    results.push(warn('mcp.tools', 'initialize, tools/list and the tool rules were skipped: they need a token (--link-secret)'));
    return results;
  }
  const url = new URL(`${ctx.target.baseUrl}/mcp`);
  const legacy = await listTools(url, ctx.token, LEGACY_REVISION, timeoutMs);
  results.push(
    'tools' in legacy
      ? pass('mcp.initialize-2025-11-25', `initialize negotiated ${LEGACY_REVISION}; tools/list answered ${legacy.tools.length} tools`)
      : fail('mcp.initialize-2025-11-25', legacy.error),
  );
  const modern = await listTools(url, ctx.token, MODERN_REVISION, timeoutMs);
  results.push(
    'tools' in modern
      ? pass(
          'mcp.request-2026-07-28',
          `a ${MODERN_REVISION} request without a handshake answered tools/list with ${modern.tools.length} tools`,
        )
      : fail('mcp.request-2026-07-28', modern.error),
  );
  const tools = 'tools' in modern ? modern.tools : 'tools' in legacy ? legacy.tools : undefined;
  if (tools) results.push(...toolRules(ctx, tools));
  return results;
}

async function unauthorized(ctx: DoctorContext): Promise<CheckResult> {
  const id = 'mcp.unauthorized';
  try {
    const response = await ctx.target.request('/mcp', {
      headers: { accept: 'application/json, text/event-stream' },
      json: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: LEGACY_REVISION, capabilities: {}, clientInfo: { name: 'connector-doctor', version: '1' } },
      },
    });
    if (response.status === 404) return fail(id, 'POST /mcp answered 404: no MCP endpoint');
    if (response.status !== 401) return fail(id, `POST /mcp without a token answered ${response.status}; expected 401`);
    const challenge = response.headers.get('www-authenticate') ?? '';
    const metadata = /resource_metadata="([^"]+)"/i.exec(challenge)?.[1];
    if (!metadata)
      return fail(id, 'the 401 from POST /mcp has no WWW-Authenticate resource_metadata (RFC 9728): apps cannot discover OAuth');
    const expected = protectedResourceUrls(ctx.target.publicUrl);
    if (!expected.includes(metadata)) return fail(id, `resource_metadata is ${metadata}; expected ${expected[0]}`);
    ctx.resourceMetadataUrl = metadata;
    return pass(id, `POST /mcp without a token answers 401 with resource_metadata="${metadata}"`);
  } catch (error) {
    return fail(id, `POST /mcp failed: ${describeError(error)}`);
  }
}

/** Where the protected-resource metadata may live: under PUBLIC_URL, or RFC 9728's origin form for a path. */
export function protectedResourceUrls(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return [...new Set([`${publicUrl}/.well-known/oauth-protected-resource`, `${url.origin}/.well-known/oauth-protected-resource${path}`])];
}

async function listTools(url: URL, token: string, revision: string, timeoutMs: number): Promise<{ tools: Tool[] } | { error: string }> {
  // A 2025 client speaks only the initialize handshake; a 2026 client is pinned so nothing falls back.
  const options =
    revision === LEGACY_REVISION ? { supportedProtocolVersions: [LEGACY_REVISION] } : { versionNegotiation: { mode: { pin: revision } } };
  const client = new Client({ name: 'connector-doctor', version: '1' }, options);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } });
  try {
    await client.connect(transport, { timeout: timeoutMs });
    const negotiated = client.getNegotiatedProtocolVersion();
    if (negotiated !== revision) return { error: `asked for ${revision}, the server settled on ${negotiated ?? 'nothing'}` };
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor && tools.length < 1000);
    return { tools };
  } catch (error) {
    return { error: `${revision}: ${describeError(error)}` };
  } finally {
    await client.close().catch(() => undefined);
  }
}

function toolRules(ctx: DoctorContext, tools: Tool[]): CheckResult[] {
  const badNames = tools.filter((t) => !/^[A-Za-z0-9_-]+$/.test(t.name) || t.name.length > MAX_TOOL_NAME).map((t) => `"${t.name}"`);
  return [
    ctx.document ? toolsMatch(ctx.document, tools) : fail('mcp.tools-match', 'cannot compare: /openapi.json was not available'),
    allOf(
      'mcp.tool-names',
      badNames.map((n) => `tool name ${n} must be 1..${MAX_TOOL_NAME} of A-Z a-z 0-9 _ -`),
      `all ${tools.length} tool names are at most ${MAX_TOOL_NAME} characters of A-Z a-z 0-9 _ -`,
    ),
  ];
}

/**
 * `mcp.tools-match`: one tool per operation of the document, with the very description the document has (the
 * one a model reads, its price sentence included); a tool without an operation is a warning.
 */
function toolsMatch(document: Record<string, any>, tools: Tool[]): CheckResult {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const problems: string[] = [];
  const expected = new Set<string>();
  for (const { operation } of documentOperations(document)) {
    if (typeof operation.operationId !== 'string') continue;
    const name = toolName(operation.operationId);
    expected.add(name);
    const tool = byName.get(name);
    if (!tool) problems.push(`no tool ${name} for operation ${operation.operationId}`);
    else if (tool.description !== operation.description)
      problems.push(`tool ${name}'s description differs from ${operation.operationId}'s`);
  }
  const extra = tools.map((t) => t.name).filter((name) => !expected.has(name));
  if (problems.length > 0) return fail('mcp.tools-match', problems.join('; '));
  if (extra.length > 0) return warn('mcp.tools-match', `every operation is a tool; tools without an operation: ${extra.join(', ')}`);
  return pass('mcp.tools-match', `the ${expected.size} tools are the OpenAPI operations, with the same descriptions`);
}
