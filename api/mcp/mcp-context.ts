import type { Logger } from 'pino';
import type { Principal } from '../../shared/auth/principal';
import type { ToolDefinition } from '../../shared/mcp/tool-definitions';
import type { Metrics } from '../../shared/metrics/metrics';
import type { Services } from '../../shared/operations/operation';

/** What every MCP request is served with: built once per app. */
export interface McpDependencies {
  tools: readonly ToolDefinition[];
  services: Services;
  metrics: Metrics;
  logger: Logger;
  /** How long a job (and so its task) is kept: the idempotency retention. */
  taskTtlMs: number;
}

/** Who one MCP request acts for, handed from the HTTP chain to the per-request server. */
export interface McpCaller {
  principal: Principal;
  requestId: string;
}
