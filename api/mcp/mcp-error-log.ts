import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { McpCaller } from './mcp-context';
import type { FetchMcpHandler } from './mcp-http-handler';

/** What the SDK reported while one request was being answered. */
interface Exchange {
  readonly requestId: string | undefined;
  readonly reports: Error[];
  answered: boolean;
}

/** Enough of a refusal's reason to tell what the client got wrong; the client chose some of its text. */
const REASON_MAX_CHARS = 300;

/** The SDK's error reports, logged by what the client was answered. */
export interface McpErrorLog {
  /** The `onerror` to hand the SDK's handler and transports. */
  onerror(error: Error): void;
  /** `handler` with its reports logged once its answer is known. */
  around(handler: FetchMcpHandler): FetchMcpHandler;
}

/**
 * The SDK reports every refusal through `onerror` as a bare `Error`, a client's missing `Accept` header as
 * much as a fault of ours, and before the answer it goes with is known. So reports are held per request
 * (async context) and logged once the answer's status is: below 500 the client was told why (406, 415, a
 * JSON-RPC error), so it is an info line with the reason and no stack, which would only point into the SDK;
 * a 5xx, or a report with no answer to go with (one after the answer, or outside any request), is an error
 * line with the stack.
 */
export function mcpErrorLog(logger: Logger): McpErrorLog {
  const current = new AsyncLocalStorage<Exchange>();
  const fault = (error: Error, requestId: string | undefined, status?: number) =>
    logger.error({ req_id: requestId, ...(status !== undefined ? { status } : {}), err: error }, 'mcp request failed');
  return {
    onerror(error) {
      const exchange = current.getStore();
      if (exchange && !exchange.answered) exchange.reports.push(error);
      else fault(error, exchange?.requestId);
    },
    around(handler) {
      return {
        async fetch(request, options) {
          const caller = options?.authInfo?.extra?.caller as McpCaller | undefined;
          const exchange: Exchange = { requestId: caller?.requestId, reports: [], answered: false };
          let status = 500;
          try {
            const response = await current.run(exchange, () => handler.fetch(request, options));
            status = response.status;
            return response;
          } finally {
            exchange.answered = true;
            for (const error of exchange.reports) {
              if (status >= 500) fault(error, exchange.requestId, status);
              else
                logger.info(
                  { req_id: exchange.requestId, status, reason: String(error.message).slice(0, REASON_MAX_CHARS) },
                  'mcp request refused',
                );
            }
          }
        },
      };
    },
  };
}
