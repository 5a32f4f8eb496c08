import type { NextFunction, Request, Response } from 'express';
import type { BearerAdmission, ClaimAdmissionRequest } from '../../shared/domain/admission/admission-store';
import { type PutOff, state } from '../http/locals';

/**
 * A paid job's bearer admission, put off from before its body until its claim, which makes it in the same
 * step (docs/decisions/admission-in-the-claim.md). A request that ends before its claim (a body the document
 * refuses, a missing key, a failing backend) is admitted on its own first, so that it is answered and counted
 * exactly as before: a 401 or a 429 still comes before a 400.
 */
export class PutOffAdmission implements PutOff {
  #pending = true;

  constructor(
    readonly request: ClaimAdmissionRequest,
    /** The API's answer to an outcome: announces the window, throws a refusal. */
    private readonly answer: (outcome: BearerAdmission) => Promise<void>,
    /** The admission's own round trip, for a request that ends before its claim. */
    private readonly admitAlone: () => Promise<BearerAdmission>,
  ) {}

  get pending(): boolean {
    return this.#pending;
  }

  settle(outcome: BearerAdmission): Promise<void> {
    this.#pending = false;
    return this.answer(outcome);
  }

  async admitNow(): Promise<void> {
    if (!this.#pending) return;
    this.#pending = false;
    await this.answer(await this.admitAlone());
  }
}

/**
 * Error middleware: a request that failed before its put-off admission was made is admitted first, and a
 * refusal answers in place of the error, as it would have with the admission before the body.
 */
export function admitPutOff(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  const putOff = state(res).putOff;
  if (!putOff?.pending) return next(error);
  putOff.admitNow().then(() => next(error), next);
}
