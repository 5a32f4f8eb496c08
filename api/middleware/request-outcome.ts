import type { NextFunction, Request, Response } from 'express';

/** Something done with every answered request: given the request, its answer and how long it took. */
export type OutcomeRecorder = (req: Request, res: Response, durationNs: number) => void;

/**
 * Times every request once and, when its answer is finished, hands it to each recorder in order (the HTTP
 * metrics, then the access line). One `finish` listener and one clock reading per request rather than one
 * of each per recorder: a request holds its listeners and start time across its Redis wait, where the
 * scavenges under load find them alive (docs/decisions/per-request-bookkeeping.md).
 */
export function requestOutcome(...recorders: OutcomeRecorder[]) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const start = process.hrtime.bigint();
    res.once('finish', () => {
      const durationNs = Number(process.hrtime.bigint() - start);
      for (const record of recorders) record(req, res, durationNs);
    });
    next();
  };
}
