import type * as z from 'zod';
import type { AdmissionAlong } from '../../domain/admission/admission-store';
import type { OperationLimits } from '../../domain/admission/operation-limits';
import type { Principal } from '../../domain/connections/principal';
import type { PriceRule } from '../../domain/jobs/price';
import type { PaidJob } from '../../domain/jobs/processor';
import type { JobFunding, UsageSnapshot } from '../../domain/ledger/ledger-store';
import type { Services } from '../../domain/services';
import type { AppCard } from '../cards/app-card';

/** A JSON Schema (2020-12, as OpenAPI 3.1 uses it). */
export type JsonSchema = Record<string, unknown>;

/**
 * Where a paid operation's body carries the job's input: under `input`, beside an optional `idempotency_key`
 * (`wrapped`, the default), or as the whole body, the key in the `Idempotency-Key` header or, for clients
 * that cannot send headers, the `idempotency_key` query parameter (`top-level`).
 */
export type PaidBodyShape = 'wrapped' | 'top-level';

/** How an operation authenticates its caller. */
export type AuthScheme = 'bearer' | 'link-secret';

/** A validated request, independent of Express: its body already passed the operation's schema. */
export interface OperationRequest<Body = unknown> {
  /** For an operation with `readsUsage`: the subject's charges, read with the admission (absent otherwise). */
  usage?: UsageSnapshot;
  body: Body;
  query: Readonly<Record<string, unknown>>;
  params: Readonly<Record<string, string>>;
  header(name: string): string | undefined;
}

/** The request of a bearer operation: who the token acts for is always known by then. */
export interface BearerRequest<Body = unknown> extends OperationRequest<Body> {
  principal: Principal;
  /** A paid operation called with an x402 payment just settled: what funds its job, in the job's claim. */
  funding?: JobFunding;
  /** A paid operation's admission, put off by the API until its job's claim, which makes it (`JobSubmission.admission`). */
  admission?: AdmissionAlong;
}

/** What a handler answers; the HTTP layer writes it. */
export interface OperationResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * Instead of `body`: lines written one by one as they come (`application/x-ndjson`), each followed by a
   * newline, waiting whenever the socket is full, so an answer of any length is sent in bounded memory.
   */
  lines?: AsyncIterable<string>;
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
  /** The media type; `application/json` by default. A streamed answer's schema is that of one line. */
  contentType?: string;
  schema: JsonSchema;
  headers?: Record<string, HeaderSpec>;
}

/** What every operation declares, whatever its authentication. */
interface OperationParts<Body> {
  operationId: string;
  method: 'get' | 'post' | 'delete';
  /** OpenAPI path template, e.g. `/v1/jobs/{id}`. */
  path: string;
  summary: string;
  /**
   * For the model: what it does, what it will not do. The description a model reads is this text plus the
   * price sentence of a paid operation (`modelDescription`); the two together fit 300 characters.
   */
  description: string;
  /** False for the dashboard's operations: they are routed and validated but not shown to the model. */
  published: boolean;
  /** True when the call changes something the person would want to approve. */
  consequential: boolean;
  /** True when the call can destroy or overwrite the person's data (an MCP annotation); default false. */
  destructive?: boolean;
  /** True when the call reaches systems beyond the connector's own records (an MCP annotation); default false. */
  openWorld?: boolean;
  parameters?: ReadonlyArray<Readonly<Record<string, unknown>>>;
  /**
   * The JSON body, declared once with zod: it gives the JSON Schema that is published and enforced, and the
   * type of `request.body` in the handler. Plain data only (no default or transform): the handler receives
   * the body as sent, once it passed the schema.
   */
  requestBody?: z.ZodType<Body>;
  /** The largest body accepted, in bytes; default: the body's worst case as JSON, at least 64 KiB. */
  bodyLimitBytes?: number;
  responses: Readonly<Record<number, ResponseSpec>>;
  /** Error statuses this operation can answer (problem+json). */
  errors: readonly number[];
  /**
   * True when the handler shows the caller's charges: bearer admission then reads them in its own step and
   * hands them over as `request.usage`, saving the handler a store call.
   */
  readsUsage?: boolean;
  /**
   * The price rule of a paid operation, charged once when a job is accepted; the published documents state
   * it. Absent for a free operation.
   */
  price?: PriceRule;
  /**
   * Its own limits per subject, on top of the connector's: calls a minute, and for a paid operation credits a
   * UTC day. Enforced on every replica, published (`x-limits`, the description, the `RateLimit` headers, the
   * 429 and 402 bodies) and checked by the registry's rules and the doctor. Absent: only the connector's.
   */
  limits?: OperationLimits;
  /** For asynchronous operations: which operation to poll, and how long to wait between polls. */
  async?: { pollOperationId: string; retryAfterSeconds: number };
  /** For paid asynchronous operations: the job the worker runs for it (the worker's list is derived from these). */
  job?: PaidJob;
  /** For paid asynchronous operations: where the body carries the job's input (absent: `wrapped`). */
  bodyShape?: PaidBodyShape;
  /**
   * True when the handler hands `request.admission` to its job's claim (`paidOperation`'s does): the API may
   * then put the caller's bearer admission off until that claim, which makes it in the same step.
   */
  admitsInClaim?: boolean;
  /**
   * The MCP Apps card (a `ui://` resource) that hosts speaking the extension show this operation's tool
   * results in; its tool names it in `_meta.ui.resourceUri`. Paid operations, getJob and cancelJob show the
   * job card; give an operation a card of its own here. Absent: a plain tool.
   */
  card?: AppCard;
}

/** An operation called with a bearer token: its handler always knows the principal. */
export interface BearerOperation<Body = unknown> extends OperationParts<Body> {
  auth: 'bearer';
  handle(request: BearerRequest<Body>, services: Services): Promise<OperationResult>;
}

/** An operation of the operator's dashboard, called with the link secret: no principal. */
export interface LinkSecretOperation<Body = unknown> extends OperationParts<Body> {
  auth: 'link-secret';
  handle(request: OperationRequest<Body>, services: Services): Promise<OperationResult>;
}

/**
 * One operation: the single source for its route, its OpenAPI entry, its llms.txt entry and its MCP tool;
 * a paid asynchronous operation also names the job the worker runs.
 */
export type Operation<Body = unknown> = BearerOperation<Body> | LinkSecretOperation<Body>;

/** What a builder is given: the operation without its scheme, its body type taken from its schema. */
type Declared<O extends Operation<unknown>, S extends z.ZodType | undefined> = Omit<O, 'auth' | 'requestBody'> & {
  requestBody?: S;
};

/** The body type a schema gives; no schema, no body. */
type BodyOf<S> = S extends z.ZodType ? z.output<S> : undefined;

/** A bearer operation, `request.body` typed by its `requestBody` schema and `request.principal` always set. */
export function bearerOperation<S extends z.ZodType | undefined = undefined>(
  declared: Declared<BearerOperation<BodyOf<S>>, S>,
): BearerOperation<BodyOf<S>> {
  return { ...declared, auth: 'bearer' } as BearerOperation<BodyOf<S>>;
}

/** A dashboard operation (link secret), `request.body` typed by its `requestBody` schema. */
export function linkSecretOperation<S extends z.ZodType | undefined = undefined>(
  declared: Declared<LinkSecretOperation<BodyOf<S>>, S>,
): LinkSecretOperation<BodyOf<S>> {
  return { ...declared, auth: 'link-secret' } as LinkSecretOperation<BodyOf<S>>;
}
