import type { CallToolResult } from '@modelcontextprotocol/server';
import { context, propagation, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { inSpan } from '../../shared/platform/tracing/spans';
import type { ToolOutcome } from './tool-calls';

/** The trace context a request's `_meta` may carry (SEP-414): only these two members are read. */
function traceCarrier(meta: unknown): Record<string, string> | undefined {
  if (typeof meta !== 'object' || meta === null) return undefined;
  const { traceparent, tracestate } = meta as Record<string, unknown>;
  if (typeof traceparent !== 'string') return undefined;
  return typeof tracestate === 'string' ? { traceparent, tracestate } : { traceparent };
}

/**
 * Runs a `tools/call` inside its MCP server span, named and attributed as the MCP semantic conventions say
 * (`mcp.method.name`, `gen_ai.tool.name`, `gen_ai.operation.name`); never the arguments. With a
 * `_meta.traceparent` (and `_meta.tracestate`) the span continues the caller's trace; otherwise it is a child
 * of the HTTP request's span. Everything the tool does (its Redis calls, the enqueue of a paid job) is inside
 * it. `tool` is the registry's name, or undefined for a name the registry does not have (a client's free text
 * is not recorded). A tool's error result (an outcome's, or an `isError` result's) marks the span failed with `error.type` `tool_error`.
 */
export function inToolCallSpan<T extends ToolOutcome | CallToolResult>(
  tool: string | undefined,
  meta: unknown,
  run: () => Promise<T>,
): Promise<T> {
  const carrier = traceCarrier(meta);
  const parent = carrier ? propagation.extract(context.active(), carrier) : undefined;
  return inSpan(
    tool ? `tools/call ${tool}` : 'tools/call',
    {
      kind: SpanKind.SERVER,
      parent,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.operation.name': 'execute_tool',
        ...(tool ? { 'gen_ai.tool.name': tool } : {}),
      },
    },
    async (span) => {
      const outcome = await run();
      if ('error' in outcome || ('isError' in outcome && outcome.isError === true)) {
        span.setAttribute('error.type', 'tool_error');
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      return outcome;
    },
  );
}
