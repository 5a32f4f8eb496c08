import type { HttpScenario } from './http-load';

/** What (f) found: a scenario to run, or why there is none. */
export interface McpProbe {
  available: boolean;
  reason?: string;
  scenario?: HttpScenario;
}

const PROTOCOL_VERSION = '2025-06-18';
const ACCEPT = 'application/json, text/event-stream';

/**
 * (f) `tools/call get_me` over MCP's streamable HTTP transport. The connector may not serve `/mcp` yet:
 * then (f) is reported as not available rather than failing the run. When it does, the session is opened
 * once (initialize, then the initialized notification) and the load repeats one `tools/call`.
 */
export async function mcpScenario(base: string, auth: Record<string, string>): Promise<McpProbe> {
  const headers: Record<string, string> = { ...auth, accept: ACCEPT, 'content-type': 'application/json', 'mcp-protocol-version': PROTOCOL_VERSION };
  const initialize = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'connector-bench', version: '1' } },
    }),
  });
  await initialize.text();
  if (initialize.status === 404 || initialize.status === 405) return { available: false, reason: `POST /mcp answered ${initialize.status}` };
  if (!initialize.ok) throw new Error(`MCP initialize answered ${initialize.status}`);
  const session = initialize.headers.get('mcp-session-id');
  if (session) headers['mcp-session-id'] = session;
  const initialized = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await initialized.text();
  const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_me', arguments: {} } });
  const probe = await fetch(`${base}/mcp`, { method: 'POST', headers, body: call });
  const text = await probe.text();
  if (!probe.ok || !text.includes('"result"') || text.includes('"isError":true')) throw new Error(`MCP tools/call get_me answered ${probe.status}: ${text.slice(0, 200)}`);
  return { available: true, scenario: { id: 'f', title: 'MCP tools/call get_me', backend: 'redis', url: `${base}/mcp`, options: { method: 'POST', headers, body: call } } };
}
