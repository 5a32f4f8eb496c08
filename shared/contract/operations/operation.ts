import type { Principal } from '../../domain/connections/principal';
import type { UsageSnapshot } from '../../domain/ledger/ledger-store';
import type { PriceRule } from '../../domain/jobs/price';
import type { PaidJob } from '../../domain/jobs/processor';
import type { Services } from '../../domain/services';
import type { AppCard } from '../mcp/job-card/app-card';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/** How an operation authenticates its caller. */
export type AuthScheme = 'bearer' | 'link-secret';

/** A validated request, independent of Express. */
export interface OperationRequest {
  /** Set for bearer operations: who the token acts for. */
  principal?: Principal;
  /** For an operation with `readsUsage`: the subject's charges, read with the admission (absent otherwise). */
  usage?: UsageSnapshot;
  // biome-ignore lint/suspicious/noExplicitAny: validated against the operation's request schema before a handler reads it
  body: any;
  query: Record<string, unknown>;
  params: Record<string, string>;
  header(name: string): string | undefined;
}

/** What a handler answers; the HTTP layer writes it. */
export interface OperationResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A documented response header. */
export interface HeaderSpec {
  description: string;
  schema: JsonSchema;
  required?: boolean;
}

/** A documented success response. */
export interface ResponseSpec {
  description: string;
  schema: JsonSchema;
  headers?: Record<string, HeaderSpec>;
}

/**
 * One operation: the single source for its route, its OpenAPI entry, its llms.txt entry and its MCP tool;
 * a paid asynchronous operation also names the job the worker runs.
 */
export interface Operation {
  operationId: string;
  method: 'get' | 'post' | 'delete';
  /** OpenAPI path template, e.g. `/v1/jobs/{id}`. */
  path: string;
  summary: string;
  /** At most 300 characters: read by the platform's model, copied verbatim into llms.txt. */
  description: string;
  auth: AuthScheme;
  /** False for the dashboard's operations: they are routed and validated but not shown to the model. */
  published: boolean;
  /** True when the call changes something the person would want to approve. */
  consequential: boolean;
  /** True when the call can destroy or overwrite the person's data (an MCP annotation); default false. */
  destructive?: boolean;
  /** True when the call reaches systems beyond the connector's own records (an MCP annotation); default false. */
  openWorld?: boolean;
  parameters?: ReadonlyArray<Record<string, unknown>>;
  requestBody?: JsonSchema;
  responses: Readonly<Record<number, ResponseSpec>>;
  /** Error statuses this operation can answer (problem+json). */
  errors: readonly number[];
  /**
   * True when the handler shows the caller's charges: bearer admission then reads them in its own step and
   * hands them over as `request.usage`, saving the handler a store call.
   */
  readsUsage?: boolean;
  /**
   * The price rule of a paid operation (`fixedPrice(1)`, `perUnit({...})`), charged once when a job is
   * accepted; the published documents state it. Absent for a free operation.
   */
  price?: PriceRule;
  /** For asynchronous operations: which operation to poll, and how long to wait between polls. */
  async?: { pollOperationId: string; retryAfterSeconds: number };
  /** For paid asynchronous operations: the job the worker runs for it (also listed in `PAID_JOBS`). */
  job?: PaidJob;
  /**
   * The MCP Apps card (a `ui://` resource) that hosts speaking the extension show this operation's tool
   * results in; its tool names it in `_meta.ui.resourceUri`. Paid operations, getJob and cancelJob show the
   * job card; give an operation a card of its own here. Absent: a plain tool.
   */
  card?: AppCard;
  handle(request: OperationRequest, services: Services): Promise<OperationResult>;
}
