import { expect } from 'chai';
import { AppError } from '../../../../../shared/platform/errors/app-error';
import {
  BadRequestError,
  BillingModeError,
  CreditBudgetError,
  ExpectationFailedError,
  ForbiddenError,
  GrantConflictError,
  HeaderFieldsTooLargeError,
  IdempotencyConflictError,
  InsufficientCreditsError,
  InternalError,
  JobFinishedError,
  MethodNotAllowedError,
  NotFoundError,
  OperationBudgetError,
  PayloadTooLargeError,
  PaymentFacilitatorUnavailableError,
  PaymentRequiredError,
  PROBLEMS,
  PriceExceedsDailyLimitError,
  PriceExceedsOperationLimitError,
  RateLimitedError,
  RequestTimeoutError,
  ServiceUnavailableError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
  VoidConflictError,
} from '../../../../../shared/platform/errors/problems';

type Kind = keyof typeof PROBLEMS;

/** The exported class of every kind; the type refuses a kind left out. */
const CLASSES = {
  ValidationError,
  BadRequestError,
  UnauthorizedError,
  InsufficientCreditsError,
  CreditBudgetError,
  PriceExceedsDailyLimitError,
  OperationBudgetError,
  PriceExceedsOperationLimitError,
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
  PaymentRequiredError,
  PaymentFacilitatorUnavailableError,
} satisfies Record<Kind, unknown>;

/** Arguments for every kind of the table, so that each entry is built at least once. */
const ARGUMENTS: { [K in Kind]: ConstructorParameters<(typeof CLASSES)[K]> } = {
  ValidationError: ['The body is not valid JSON.'],
  BadRequestError: ['The request parameter is missing or malformed.'],
  UnauthorizedError: ['missing', 'bearer'],
  InsufficientCreditsError: [3, 5, 'https://shop.test/credits'],
  CreditBudgetError: [10, new Date('2026-11-30T00:00:00.000Z'), 3600],
  PriceExceedsDailyLimitError: [12, 10],
  OperationBudgetError: ['countWords', 30, new Date('2026-11-30T00:00:00.000Z'), 3600],
  PriceExceedsOperationLimitError: ['countWords', 40, 30],
  PaymentRequiredError: ['Pay first.', 'eyJ4NDAyVmVyc2lvbiI6Mn0=', 'nonce_used'],
  PaymentFacilitatorUnavailableError: [5],
  ForbiddenError: ['Cross-site consent is refused.'],
  NotFoundError: [],
  MethodNotAllowedError: [['GET', 'HEAD']],
  RequestTimeoutError: [],
  BillingModeError: [],
  JobFinishedError: [],
  PayloadTooLargeError: [1024],
  UnsupportedMediaTypeError: [],
  ExpectationFailedError: [],
  GrantConflictError: [],
  VoidConflictError: [],
  IdempotencyConflictError: [],
  RateLimitedError: [7],
  HeaderFieldsTooLargeError: [],
  InternalError: [],
  ServiceUnavailableError: [],
};

const KINDS = Object.keys(PROBLEMS) as Kind[];

function build<K extends Kind>(kind: K): AppError {
  const ProblemClass = CLASSES[kind] as unknown as new (...args: unknown[]) => AppError;
  return new ProblemClass(...ARGUMENTS[kind]);
}

describe('the problem table', () => {
  it('every kind of the table, built from its class, answers the status, problem type and title it declares', () => {
    for (const kind of KINDS) {
      const error = build(kind);
      const { status, slug, title } = PROBLEMS[kind];
      expect(error, kind).to.be.instanceOf(AppError).and.to.be.instanceOf(CLASSES[kind]);
      expect([error.status, error.type, error.title], kind).to.deep.equal([status, `urn:connector:problem:${slug}`, title]);
      expect(error.message, kind).to.match(/\S/);
    }
  });

  it('every class is named after its key, so logs and stack traces name the kind', () => {
    for (const kind of KINDS) expect([build(kind).name, CLASSES[kind].name]).to.deep.equal([kind, kind]);
  });

  it('no two kinds share a problem type, and every status is an error status', () => {
    const slugs = KINDS.map((kind) => PROBLEMS[kind].slug);
    expect(new Set(slugs).size).to.equal(slugs.length);
    for (const kind of KINDS) expect(PROBLEMS[kind].status, kind).to.be.within(400, 599);
  });

  it('a kind with a fixed detail answers that detail, with no header, extension member or field error', () => {
    for (const kind of KINDS.filter((k) => 'detail' in PROBLEMS[k])) {
      const error = build(kind);
      expect(error.message, kind).to.equal((PROBLEMS[kind] as { detail: string }).detail);
      expect([error.headers, error.extensions, error.errors], kind).to.deep.equal([{}, {}, undefined]);
    }
  });

  it('a 429, a 503 and a budget 402 say when to retry in Retry-After; a 503 with no argument says 5 seconds', () => {
    expect(new RateLimitedError(7).headers).to.deep.equal({ 'Retry-After': '7' });
    expect(new ServiceUnavailableError().headers).to.deep.equal({ 'Retry-After': '5' });
    expect(new ServiceUnavailableError(2).headers).to.deep.equal({ 'Retry-After': '2' });
    expect(build('CreditBudgetError').headers).to.deep.equal({ 'Retry-After': '3600' });
    expect(build('PriceExceedsDailyLimitError').headers).to.deep.equal({});
  });

  it("a 429 of an operation's own limit and its 402s name the operation and the limit, in the detail and as members", () => {
    const limited = new RateLimitedError(7, { operation: 'countWords', perMinute: 20 });
    expect(limited.message).to.equal('Too many calls of countWords: at most 20 a minute per person. Retry after 7 seconds.');
    expect([limited.headers, limited.extensions]).to.deep.equal([
      { 'Retry-After': '7' },
      { operation: 'countWords', limit: 20, window_seconds: 60 },
    ]);
    const capped = build('OperationBudgetError');
    expect(capped.message).to.include('daily cap of 30 credits on countWords').and.include('2026-11-30T00:00:00.000Z');
    expect([capped.headers, capped.extensions]).to.deep.equal([
      { 'Retry-After': '3600' },
      { operation: 'countWords', limit: 30, resets_at: '2026-11-30T00:00:00.000Z' },
    ]);
    const never = build('PriceExceedsOperationLimitError');
    expect([never.headers, never.extensions]).to.deep.equal([{}, { operation: 'countWords', limit: 30 }]);
    expect(never.message).to.include('costs 40 credits, more than the daily cap of 30 credits on countWords');
  });

  it('a 405 lists the allowed methods in Allow and in its detail', () => {
    const error = build('MethodNotAllowedError');
    expect([error.headers, error.message]).to.deep.equal([{ Allow: 'GET, HEAD' }, 'This path accepts GET, HEAD.']);
  });

  it('a 401 on a bearer operation challenges with the realm, or with the resource metadata when given, and keeps its reason', () => {
    const missing = new UnauthorizedError('missing', 'bearer');
    const expired = new UnauthorizedError('expired', 'bearer', 'https://c.test/.well-known/oauth-protected-resource');
    expect(missing.headers).to.deep.equal({ 'WWW-Authenticate': 'Bearer realm="connector"' });
    expect(expired.headers).to.deep.equal({
      'WWW-Authenticate': 'Bearer resource_metadata="https://c.test/.well-known/oauth-protected-resource", error="invalid_token"',
    });
    expect([missing.reason, expired.reason]).to.deep.equal(['missing', 'expired']);
  });

  it('a 401 on a link-secret operation has no challenge and names the header', () => {
    const error = new UnauthorizedError('bad_link_secret', 'link-secret');
    expect([error.headers, error.message, error.reason]).to.deep.equal([
      {},
      'A valid x-link-secret header is required.',
      'bad_link_secret',
    ]);
  });

  it('a 402 for too few credits carries the balance, price and top-up link as members and as extension members', () => {
    const error = new InsufficientCreditsError(0, 1, 'https://shop.test/credits');
    expect(error.extensions).to.deep.equal({ balance: 0, price: 1, top_up_url: 'https://shop.test/credits' });
    expect([error.balance, error.price, error.topUpUrl]).to.deep.equal([0, 1, 'https://shop.test/credits']);
    expect(error.message).to.equal(
      'This job costs 1 credit and the balance is 0. Top up at https://shop.test/credits, then retry with the same idempotency key; nothing was charged.',
    );
  });

  it('a 400 carries its field errors, and none when given none', () => {
    const fields = [{ path: '/body/pages', message: 'must be <= 5' }];
    expect(new ValidationError('The request does not match the schema.', fields).errors).to.deep.equal(fields);
    expect(new ValidationError('The request is malformed.').errors).to.deep.equal([]);
  });
});
