import { AppError, type FieldProblem } from './app-error';

/** Why authentication failed; used for metrics and logs, never shown to the caller. */
export type AuthFailureReason = 'missing' | 'invalid' | 'expired' | 'revoked' | 'bad_link_secret';

/** What a kind's arguments decide: the detail and any field errors, headers, extension members or members. */
export interface ProblemParts {
  readonly detail: string;
  readonly errors?: readonly FieldProblem[];
  readonly headers?: Record<string, string>;
  readonly extensions?: Record<string, unknown>;
  /** Properties of the error for the code that catches it (why authentication failed); never sent. */
  readonly members?: object;
}

/** An operation's own rate limit, named by the 429 it caused. */
export interface OperationRate {
  operation: string;
  perMinute: number;
}

/** One kind of problem: its status, `type` slug and title, then a fixed detail or `of`, which builds the rest. */
export type ProblemKind = { readonly status: number; readonly slug: string; readonly title: string } & (
  | { readonly detail: string }
  | { readonly of: (...args: never[]) => ProblemParts }
);

/**
 * Every problem the service answers on purpose, one entry per kind, keyed by the name of its error class.
 * The classes below are derived from it: `new NotFoundError()` is entry `NotFoundError`, with `of`'s
 * parameters as the constructor's.
 */
export const PROBLEMS = {
  /** The request does not match the published schema (or is otherwise malformed). */
  ValidationError: {
    status: 400,
    slug: 'validation',
    title: 'Invalid request',
    of: (detail: string, errors: readonly FieldProblem[] = []) => ({ detail, errors }),
  },
  /** A malformed form of the dev consent page. */
  BadRequestError: { status: 400, slug: 'bad-request', title: 'Bad request', of: (detail: string) => ({ detail }) },
  /**
   * A missing or unusable credential; the body is the same whatever the reason. With a `resourceMetadataUrl`
   * (RFC 9728), the bearer challenge points OAuth clients at the protected-resource metadata, not a realm.
   */
  UnauthorizedError: {
    status: 401,
    slug: 'unauthorized',
    title: 'Unauthorized',
    of: (reason: AuthFailureReason, scheme: 'bearer' | 'link-secret', resourceMetadataUrl?: string) => ({
      detail:
        scheme === 'bearer'
          ? 'A valid bearer token is required. Reconnect the connector to get a new one.'
          : 'A valid x-link-secret header is required.',
      headers: scheme === 'bearer' ? bearerChallenge(reason, resourceMetadataUrl) : {},
      members: { reason },
    }),
  },
  /**
   * In `prepaid` billing, the balance cannot hold the job's price. Nothing was recorded or charged; the body
   * says where to buy more, so the caller can send the person there and retry with the same key.
   */
  InsufficientCreditsError: {
    status: 402,
    slug: 'insufficient-credits',
    title: 'Not enough credits',
    of: (balance: number, price: number, topUpUrl: string) => ({
      detail:
        `This job costs ${credits(price)} and the balance is ${balance}. ` +
        `Top up at ${topUpUrl}, then retry with the same idempotency key; nothing was charged.`,
      extensions: { balance, price, top_up_url: topUpUrl },
      members: { balance, price, topUpUrl },
    }),
  },
  /** A new paid job would take the subject over its daily credit budget. Nothing was queued or charged. */
  CreditBudgetError: {
    status: 402,
    slug: 'credit-budget-exhausted',
    title: 'Daily credit budget used up',
    of: (limit: number, resetsAt: Date, retryAfterSeconds: number) => ({
      detail:
        `This job would exceed the daily budget of ${credits(limit)}. ` +
        `The budget resets at ${resetsAt.toISOString()} (midnight UTC); nothing was charged.`,
      headers: retryAfter(retryAfterSeconds),
    }),
  },
  /** The job costs more than the whole daily limit: unlike `CreditBudgetError`, nothing to wait for (no `Retry-After`). */
  PriceExceedsDailyLimitError: {
    status: 402,
    slug: 'price-exceeds-daily-limit',
    title: 'Price above the daily credit limit',
    of: (price: number, limit: number) => ({
      detail:
        `This job costs ${credits(price)}, more than the daily limit of ${credits(limit)}, so it cannot be accepted on any day. ` +
        'Ask for a smaller job; nothing was charged.',
    }),
  },
  /**
   * A new paid job would take the subject over the daily credit cap its operation declares (`limits.dailyCredits`),
   * apart from the connector's own budget: the other operations still take jobs. Nothing was queued or charged.
   */
  OperationBudgetError: {
    status: 402,
    slug: 'operation-budget-exhausted',
    title: "Operation's daily credit cap used up",
    of: (operation: string, limit: number, resetsAt: Date, retryAfterSeconds: number) => ({
      detail:
        `This job would exceed the daily cap of ${credits(limit)} on ${operation}. ` +
        `The cap resets at ${resetsAt.toISOString()} (midnight UTC); other operations are not affected; nothing was charged.`,
      headers: retryAfter(retryAfterSeconds),
      extensions: { operation, limit, resets_at: resetsAt.toISOString() },
    }),
  },
  /** The job costs more than its operation's whole daily cap: nothing to wait for (no `Retry-After`). */
  PriceExceedsOperationLimitError: {
    status: 402,
    slug: 'price-exceeds-operation-limit',
    title: "Price above the operation's daily credit cap",
    of: (operation: string, price: number, limit: number) => ({
      detail:
        `This job costs ${credits(price)}, more than the daily cap of ${credits(limit)} on ${operation}, so it cannot be accepted on any day. ` +
        'Ask for a smaller job; nothing was charged.',
      extensions: { operation, limit },
    }),
  },
  /**
   * x402: a paid operation called without a bearer token needs a payment (or the one sent was refused).
   * `PAYMENT-REQUIRED` carries the x402 v2 `PaymentRequired` (base64 JSON) for this very input. Nothing was
   * held or charged.
   */
  PaymentRequiredError: {
    status: 402,
    slug: 'payment-required',
    title: 'Payment required',
    of: (detail: string, paymentRequired: string, reason?: string) => ({
      detail,
      headers: { 'PAYMENT-REQUIRED': paymentRequired },
      ...(reason === undefined ? {} : { extensions: { reason } }),
      members: { paymentRequired, reason },
    }),
  },
  /** Understood but refused, e.g. a browser page from an origin that is not allowed. */
  ForbiddenError: { status: 403, slug: 'forbidden', title: 'Forbidden', of: (detail: string) => ({ detail }) },
  /** No such route, or no such resource for this subject (the two are indistinguishable on purpose). */
  NotFoundError: { status: 404, slug: 'not-found', title: 'Not found', of: (detail = 'Nothing is here.') => ({ detail }) },
  /** The path exists but not with this method; `Allow` lists the methods it has. */
  MethodNotAllowedError: {
    status: 405,
    slug: 'method-not-allowed',
    title: 'Method not allowed',
    of: (allowed: readonly string[]) => ({ detail: `This path accepts ${allowed.join(', ')}.`, headers: { Allow: allowed.join(', ') } }),
  },
  /** The client did not finish sending its request in time. */
  RequestTimeoutError: { status: 408, slug: 'request-timeout', title: 'Request timeout', detail: 'The request was not received in time.' },
  /** Credits granted to a connector that bills `metered`, where a balance means nothing. Nothing was recorded. */
  BillingModeError: {
    status: 409,
    slug: 'billing-mode',
    title: 'Credits need prepaid billing',
    detail:
      'This connector runs with BILLING_MODE=metered: charges are counted, not paid from a balance. Set BILLING_MODE=prepaid to grant credits; nothing was recorded.',
  },
  /** A cancel asked for a job that already succeeded or failed. */
  JobFinishedError: {
    status: 409,
    slug: 'job-finished',
    title: 'Job already finished',
    detail: 'This job has already succeeded or failed, so it can no longer be canceled.',
  },
  /** The body is over the size limit. */
  PayloadTooLargeError: {
    status: 413,
    slug: 'payload-too-large',
    title: 'Payload too large',
    of: (limitBytes: number) => ({ detail: `The request body is over the limit of ${limitBytes} bytes.` }),
  },
  /** A body that is not `application/json`. */
  UnsupportedMediaTypeError: {
    status: 415,
    slug: 'unsupported-media-type',
    title: 'Unsupported media type',
    detail: 'Send the body as application/json.',
  },
  /** The request's `Expect` header asks for something other than `100-continue`. */
  ExpectationFailedError: {
    status: 417,
    slug: 'expectation-failed',
    title: 'Expectation failed',
    detail: 'The only supported Expect value is 100-continue.',
  },
  /** A grant id already used with another body (another subject, amount or note). Nothing was added. */
  GrantConflictError: {
    status: 422,
    slug: 'grant-conflict',
    title: 'Grant id reused',
    detail:
      'This grant_id was already used for a grant with another subject, amount or note; nothing was added. Use a new grant_id for a new grant.',
  },
  /** A void id already used with another body (another subject, grant or note). Nothing was voided. */
  VoidConflictError: {
    status: 422,
    slug: 'void-conflict',
    title: 'Void id reused',
    detail:
      'This void_id was already used for a void of another subject, grant or note; nothing was voided. Use a new void_id for a new void.',
  },
  /** An idempotency key reused with a different payload. */
  IdempotencyConflictError: {
    status: 422,
    slug: 'idempotency-conflict',
    title: 'Idempotency key reused',
    detail: 'This idempotency key was already used with a different request. Use a new key for a new request.',
  },
  /** Too many requests; `Retry-After` says when to try again. */
  RateLimitedError: {
    status: 429,
    slug: 'rate-limited',
    title: 'Too many requests',
    of: (retryAfterSeconds: number, limit?: OperationRate) => ({
      detail: limit
        ? `Too many calls of ${limit.operation}: at most ${limit.perMinute} a minute per person. Retry after ${retryAfterSeconds} seconds.`
        : `Too many requests. Retry after ${retryAfterSeconds} seconds.`,
      headers: retryAfter(retryAfterSeconds),
      ...(limit ? { extensions: { operation: limit.operation, limit: limit.perMinute, window_seconds: 60 } } : {}),
    }),
  },
  /** The request's headers (a token included) are over the HTTP server's header size limit. */
  HeaderFieldsTooLargeError: {
    status: 431,
    slug: 'header-fields-too-large',
    title: 'Request header fields too large',
    detail: 'The request headers are over the size limit.',
  },
  /** Something went wrong that the caller must not learn about: the cause goes to the log only. */
  InternalError: {
    status: 500,
    slug: 'internal',
    title: 'Internal error',
    detail: 'Something went wrong on our side. Retry later; quote the request id if it persists.',
  },
  /** A backend the request needs is unreachable; the caller should retry after `Retry-After`. */
  ServiceUnavailableError: {
    status: 503,
    slug: 'unavailable',
    title: 'Service unavailable',
    of: (retryAfterSeconds = 5) => ({
      detail: 'The service is temporarily unavailable. Retry shortly.',
      headers: retryAfter(retryAfterSeconds),
    }),
  },
  /** x402: the facilitator did not answer; nothing was held or charged, and the same payment may be sent again. */
  PaymentFacilitatorUnavailableError: {
    status: 503,
    slug: 'payment-facilitator-unavailable',
    title: 'Payment facilitator unavailable',
    of: (retryAfterSeconds = 5) => ({
      detail: 'The payment could not be verified or settled right now; nothing was charged. Retry with the same payment shortly.',
      headers: retryAfter(retryAfterSeconds),
    }),
  },
} satisfies Record<string, ProblemKind>;

type ArgsOf<K> = K extends { of: (...args: infer A) => ProblemParts } ? A : [];
type MembersOf<K> = K extends { of: (...args: never[]) => { members: infer M } } ? Readonly<M> : unknown;

/** The error class of one kind of the table: its constructor takes the parameters of the kind's `of`. */
export interface ProblemClass<K> {
  new (...args: ArgsOf<K>): AppError & MembersOf<K>;
  readonly prototype: AppError & MembersOf<K>;
}

/** The error classes, one per kind of {@link PROBLEMS}: `throw new NotFoundError()`. */
export const {
  ValidationError,
  BadRequestError,
  UnauthorizedError,
  InsufficientCreditsError,
  CreditBudgetError,
  PriceExceedsDailyLimitError,
  OperationBudgetError,
  PriceExceedsOperationLimitError,
  PaymentRequiredError,
  ForbiddenError,
  NotFoundError,
  MethodNotAllowedError,
  RequestTimeoutError,
  BillingModeError,
  JobFinishedError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
  ExpectationFailedError,
  GrantConflictError,
  VoidConflictError,
  IdempotencyConflictError,
  RateLimitedError,
  HeaderFieldsTooLargeError,
  InternalError,
  ServiceUnavailableError,
  PaymentFacilitatorUnavailableError,
} = problemClasses<typeof PROBLEMS>(PROBLEMS); // spelled out: inferred through the pattern, it widens

// Each class is a type too, for annotations and `import type`.
export type ValidationError = InstanceType<typeof ValidationError>;
export type BadRequestError = InstanceType<typeof BadRequestError>;
export type UnauthorizedError = InstanceType<typeof UnauthorizedError>;
export type InsufficientCreditsError = InstanceType<typeof InsufficientCreditsError>;
export type CreditBudgetError = InstanceType<typeof CreditBudgetError>;
export type PriceExceedsDailyLimitError = InstanceType<typeof PriceExceedsDailyLimitError>;
export type OperationBudgetError = InstanceType<typeof OperationBudgetError>;
export type PriceExceedsOperationLimitError = InstanceType<typeof PriceExceedsOperationLimitError>;
export type ForbiddenError = InstanceType<typeof ForbiddenError>;
export type NotFoundError = InstanceType<typeof NotFoundError>;
export type MethodNotAllowedError = InstanceType<typeof MethodNotAllowedError>;
export type RequestTimeoutError = InstanceType<typeof RequestTimeoutError>;
export type BillingModeError = InstanceType<typeof BillingModeError>;
export type JobFinishedError = InstanceType<typeof JobFinishedError>;
export type PayloadTooLargeError = InstanceType<typeof PayloadTooLargeError>;
export type UnsupportedMediaTypeError = InstanceType<typeof UnsupportedMediaTypeError>;
export type ExpectationFailedError = InstanceType<typeof ExpectationFailedError>;
export type GrantConflictError = InstanceType<typeof GrantConflictError>;
export type VoidConflictError = InstanceType<typeof VoidConflictError>;
export type IdempotencyConflictError = InstanceType<typeof IdempotencyConflictError>;
export type RateLimitedError = InstanceType<typeof RateLimitedError>;
export type HeaderFieldsTooLargeError = InstanceType<typeof HeaderFieldsTooLargeError>;
export type InternalError = InstanceType<typeof InternalError>;
export type ServiceUnavailableError = InstanceType<typeof ServiceUnavailableError>;
export type PaymentRequiredError = InstanceType<typeof PaymentRequiredError>;
export type PaymentFacilitatorUnavailableError = InstanceType<typeof PaymentFacilitatorUnavailableError>;

/** One class per kind, named after its key, so `instanceof` and the logged error name work as for a written class. */
function problemClasses<T extends Record<string, ProblemKind>>(table: T): { [K in keyof T]: ProblemClass<T[K]> } {
  const classes = Object.entries(table).map(([name, kind]) => [name, problemClass(name, kind)]);
  return Object.fromEntries(classes) as { [K in keyof T]: ProblemClass<T[K]> };
}

function problemClass(name: string, kind: ProblemKind): typeof AppError {
  const { status, slug, title } = kind;
  const partsOf: (...args: unknown[]) => ProblemParts = 'of' in kind ? (kind.of as never) : () => ({ detail: kind.detail });
  const Problem = class extends AppError {
    constructor(...args: unknown[]) {
      const { members, ...parts } = partsOf(...args);
      super({ status, slug, title, ...parts });
      Object.assign(this, members);
    }
  };
  Object.defineProperty(Problem, 'name', { value: name });
  return Problem;
}

/** RFC 6750's challenge; a reason other than a missing token adds `invalid_token`. */
function bearerChallenge(reason: AuthFailureReason, resourceMetadataUrl: string | undefined): Record<string, string> {
  const challenge = resourceMetadataUrl ? `Bearer resource_metadata="${resourceMetadataUrl}"` : 'Bearer realm="connector"';
  return { 'WWW-Authenticate': reason === 'missing' ? challenge : `${challenge}, error="invalid_token"` };
}

function retryAfter(seconds: number): Record<string, string> {
  return { 'Retry-After': String(seconds) };
}

function credits(amount: number): string {
  return `${amount} credit${amount === 1 ? '' : 's'}`;
}
