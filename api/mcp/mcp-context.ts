import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { ToolDefinition } from '../../shared/contract/mcp/tool-definitions';
import type { Principal } from '../../shared/domain/connections/principal';
import type { UsageSnapshot } from '../../shared/domain/ledger/ledger-store';
import type { Services } from '../../shared/domain/services';
import type { Metrics } from '../../shared/platform/metrics/metrics';
import type { OperationRateCheck } from '../admission/operation-rate';
import type { SpendConfirmation } from './spend-confirmation';

/** What every MCP request is served with: built once per app. */
export interface McpDependencies {
  tools: readonly ToolDefinition[];
  services: Services;
  metrics: Metrics;
  logger: Logger;
  /** How long a job (and so its task) is kept: the idempotency retention. */
  taskTtlMs: number;
  /** The person's confirmation of paid calls, and the top-up when funds are short. */
  spend: SpendConfirmation;
  /**
   * Counts each tool call against its operation's own rate limit (`limits.perMinute`), as REST admission
   * does; the `/mcp` request itself was counted against the subject's. Absent: no operation limits are counted.
   */
  operationRate?: OperationRateCheck;
}

/** Who one MCP request acts for, handed from the HTTP chain to the per-request server. */
export interface McpCaller {
  principal: Principal;
  requestId: string;
  /** An agent without a token, admitted while `X402=on` to list and pay for the payable tools only (`x402-tool-call.ts`). */
  payer?: boolean;
  /**
   * The caller's charges, read with the bearer admission because the request's `Mcp-Name` header named
   * `tool`, a tool that shows them: its call uses them instead of reading them again.
   */
  usage?: { tool: string; snapshot: UsageSnapshot };
}

/**
 * The caller of the request a handler serves, from the auth info the MCP route hands the SDK. Handlers read
 * it from their context instead of capturing it, so one set of handlers serves every request.
 */
export function callerOf(ctx: { http?: { authInfo?: AuthInfo } }): McpCaller {
  const caller = ctx.http?.authInfo?.extra?.caller as McpCaller | undefined;
  if (!caller) throw new Error('the MCP route must authenticate before a handler runs');
  return caller;
}
