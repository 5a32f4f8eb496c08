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
 * ingress serves less well. The one exception is a task request that asks for progress (a `progressToken`):
 * its notifications (the job's progress and partial result, `task-progress.ts`) need the stream.
 */
export function mcpHttpHandler(
  factory: McpServerFactory,
  { maxRequestBodySize, onerror }: { maxRequestBodySize: number; onerror: (error: Error) => void },
): FetchMcpHandler {
  // 'auto' answers JSON unless a handler streams notifications first, which none of ours does.
  const modern = createMcpHandler(factory, { legacy: 'reject', responseMode: 'auto', maxRequestBodySize, onerror });
  const legacy = async (request: Request, options?: McpHandlerRequestOptions): Promise<Response> => {
    const server = await factory({ era: 'legacy', authInfo: options?.authInfo, requestInfo: request });
    const streamed = asksTaskProgress(options?.parsedBody);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !streamed });
    transport.onerror = onerror;
    await server.connect(transport);
    let response: Response | undefined;
    try {
      response = await transport.handleRequest(request, options);
      return streamed ? closingWhenDone(response, () => server.close()) : response;
    } finally {
      if (!streamed || !response?.body) await server.close();
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

/** A 2025-era `tasks/get` or `tasks/result` with a progress token: answered as a stream, its notifications first. */
function asksTaskProgress(body: unknown): boolean {
  const message = body as { method?: unknown; params?: { _meta?: { progressToken?: unknown } } } | undefined;
  const method = message?.method;
  return (method === 'tasks/get' || method === 'tasks/result') && message?.params?._meta?.progressToken !== undefined;
}

/** The streamed answer, with `close` run once its stream has ended (answered, or abandoned by the client). */
function closingWhenDone(response: Response, close: () => Promise<void>): Response {
  if (!response.body) return response;
  const done = () => void close().catch(() => undefined);
  const body = response.body.pipeThrough(new TransformStream({ flush: done }));
  // A client that leaves early cancels the stream: the server closes then too.
  const reader = body.getReader();
  const stream = new ReadableStream({
    pull: async (controller) => {
      const { done: ended, value } = await reader.read();
      if (ended) controller.close();
      else controller.enqueue(value);
    },
    cancel: async (reason) => {
      await reader.cancel(reason);
      done();
    },
  });
  return new Response(stream, { status: response.status, statusText: response.statusText, headers: response.headers });
}
