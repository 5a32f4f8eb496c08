/** One entry of a validation failure: where, and what is wrong there. */
export interface FieldProblem {
  readonly path: string;
  readonly message: string;
}

/** Everything one problem answer is made of; `problems.ts` fills it in for each kind of its table. */
export interface ProblemInit {
  readonly status: number;
  /** The last part of the problem `type` (`urn:connector:problem:<slug>`). */
  readonly slug: string;
  readonly title: string;
  /** Shown to the caller, so it must never carry internals. */
  readonly detail: string;
  readonly errors?: readonly FieldProblem[];
  readonly headers?: Record<string, string>;
  /** RFC 9457 extension members: facts the caller acts on (a balance, a price, a link), never internals. */
  readonly extensions?: Record<string, unknown>;
}

/**
 * The root of every error the service answers on purpose. Each kind, with its HTTP status and problem type,
 * is declared once in the table of `problems.ts`; the error middleware turns it into RFC 9457 problem+json.
 */
export class AppError extends Error {
  readonly status: number;
  readonly type: string;
  readonly title: string;
  readonly errors?: readonly FieldProblem[];
  readonly headers: Readonly<Record<string, string>>;
  /** RFC 9457 extension members: facts the caller acts on (a balance, a price, a link), never internals. */
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(problem: ProblemInit) {
    super(problem.detail);
    this.name = new.target.name;
    this.status = problem.status;
    this.type = `urn:connector:problem:${problem.slug}`;
    this.title = problem.title;
    this.errors = problem.errors;
    this.headers = problem.headers ?? {};
    this.extensions = problem.extensions ?? {};
  }
}
