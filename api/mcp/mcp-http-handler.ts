import {
  createMcpHandler,
  isLegacyRequest,
  type McpHandlerRequestOptions,
  type McpServerFactory,
  PROTOCOL_VERSION_META_KEY,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/** A fetch-shaped MCP handler, as the SDK's Node adapter takes it. */
export interface FetchMcpHandler {
  fetch(request: Request, options?: McpHandlerRequestOptions): Promise<Response>;
}

/**
 * Serves both protocol eras statelessly with plain JSON answers. 2026-07-28 traffic goes to the SDK's
 * per-request handler. 2025-era traffic (the `initialize` handshake and every request after it) gets a
 * fresh server and a session-less Streamable HTTP transport per request, with JSON responses enabled:
 * the SDK's built-in legacy fallback would answer as an SSE stream, which a JSON-only, timeout-bound
 * ingress serves less well.
 */
export function mcpHttpHandler(
  factory: McpServerFactory,
  { maxRequestBodySize, onerror }: { maxRequestBodySize: number; onerror: (error: Error) => void },
): FetchMcpHandler {
  // 'auto' answers JSON unless a handler streams notifications first, which none of ours does.
  const modern = createMcpHandler(factory, { legacy: 'reject', responseMode: 'auto', maxRequestBodySize, onerror });
  const legacy = async (request: Request, options?: McpHandlerRequestOptions): Promise<Response> => {
    const server = await factory({ era: 'legacy', authInfo: options?.authInfo, requestInfo: request });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    transport.onerror = onerror;
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, options);
    } finally {
      await server.close();
    }
  };
  return {
    fetch: async (request, options) =>
      !claimsModernEnvelope(options?.parsedBody) && (await isLegacyRequest(request, options?.parsedBody, { maxRequestBodySize }))
        ? legacy(request, options)
        : modern.fetch(request, options),
  };
}

/**
 * A message whose `_meta` names a protocol version is never legacy (the SDK's own classifier says so), so
 * it goes straight to the modern handler, which classifies it anyway: this spares classifying it twice.
 */
function claimsModernEnvelope(body: unknown): boolean {
  const meta = (body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params?._meta;
  return typeof meta === 'object' && meta !== null && PROTOCOL_VERSION_META_KEY in meta;
}
