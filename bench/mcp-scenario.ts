import type { HttpScenario } from './http-load';

/** What (f) found: a scenario to run, or why there is none. */
export interface McpProbe {
  available: boolean;
  reason?: string;
  scenario?: HttpScenario;
}

const PROTOCOL_VERSION = '2026-07-28';

/**
 * (f) `tools/call get_me` over MCP: one stateless request per call (protocol 2026-07-28, so no handshake and
 * no session), the MCP twin of `GET /v1/me`. A connector without `/mcp` reports (f) as not available instead
 * of failing the run; one probe call must answer a tool result before the load starts.
 */
export async function mcpScenario(base: string, auth: Record<string, string>): Promise<McpProbe> {
  const headers: Record<string, string> = {
    authorization: auth.authorization,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PROTOCOL_VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': 'get_me',
  };
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'get_me',
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientInfo': { name: 'connector-bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  const probe = await fetch(`${base}/mcp`, { method: 'POST', headers, body });
  const text = await probe.text();
  if (probe.status === 404) return { available: false, reason: 'POST /mcp answered 404' };
  if (!probe.ok || !text.includes('"result"') || text.includes('"isError":true'))
    throw new Error(`MCP tools/call get_me answered ${probe.status}: ${text.slice(0, 200)}`);
  return {
    available: true,
    scenario: { id: 'f', title: 'MCP tools/call get_me', backend: 'redis', url: `${base}/mcp`, options: { method: 'POST', headers, body } },
  };
}
