import type autocannon from 'autocannon';

/**
 * The `tools/call get_me` scenario: one stateless MCP request per call (protocol 2026-07-28, so no
 * handshake and no session), the MCP twin of `GET /v1/me`. Returns autocannon options for the API at `base`.
 */
export function mcpGetMeScenario(base: string, token: string): autocannon.Options {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'get_me',
      arguments: {},
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
  return {
    url: `${base}/mcp`,
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'get_me',
    },
    body,
  };
}
