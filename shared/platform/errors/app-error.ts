/** One entry of a validation failure: where, and what is wrong there. */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/**
 * The root of every error the service answers on purpose. Each subclass fixes an HTTP status and a problem
 * type; the error middleware turns it into RFC 9457 problem+json. `detail` is shown to the caller, so it
 * must never carry internals.
 */
export class AppError extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly errors?: readonly FieldProblem[];
  readonly headers: Readonly<Record<string, string>>;
  /** RFC 9457 extension members: facts the caller acts on (a balance, a price, a link), never internals. */
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(
    status: number,
    slug: string,
    title: string,
    detail: string,
    options: { errors?: readonly FieldProblem[]; headers?: Record<string, string>; extensions?: Record<string, unknown> } = {},
  ) {
    super(detail);
    this.name = new.target.name;
    this.status = status;
    this.type = `urn:connector:problem:${slug}`;
    this.title = title;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }
}
