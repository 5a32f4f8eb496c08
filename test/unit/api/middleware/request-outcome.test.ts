import { EventEmitter } from 'node:events';
import { expect } from 'chai';
import type { Request, Response } from 'express';
import { type OutcomeRecorder, requestOutcome } from '../../../../api/middleware/request-outcome';

/** Runs one request through the middleware with two recorders; `finish` says whether its answer finishes. */
function run(finish: boolean) {
  const calls: Array<[string, Request, Response, number]> = [];
  const recorder =
    (name: string): OutcomeRecorder =>
    (req, res, durationNs) =>
      calls.push([name, req, res, durationNs]);
  const req = { method: 'GET' } as Request;
  const res = new EventEmitter() as unknown as Response;
  let nexts = 0;
  requestOutcome(recorder('metrics'), recorder('access'))(req, res, () => nexts++);
  if (finish) {
    res.emit('finish');
    res.emit('finish');
  }
  return { calls, req, res, nexts };
}

describe('requestOutcome', () => {
  it('a finished answer: every recorder called once, in order, with the request, answer and one duration', () => {
    const before = process.hrtime.bigint();
    const { calls, req, res, nexts } = run(true);
    const elapsed = Number(process.hrtime.bigint() - before);
    expect(nexts).to.equal(1);
    expect(calls.map(([name]) => name)).to.deep.equal(['metrics', 'access']);
    for (const [, calledReq, calledRes] of calls) expect([calledReq, calledRes]).to.deep.equal([req, res]);
    // The request's own time, from the middleware to its finish: within what the whole run took.
    expect(calls[0][3]).to.be.a('number').and.within(0, elapsed);
    expect(calls[1][3]).to.equal(calls[0][3]);
  });

  it('an answer not yet finished: no recorder called, the request passed on', () => {
    const { calls, nexts } = run(false);
    expect(calls).to.deep.equal([]);
    expect(nexts).to.equal(1);
  });
});
