import { expect } from 'chai';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { chain } from '../../../../api/http/middleware-chain';

const req = {} as Request;
const res = {} as Response;

/** Runs a chain and resolves with what it handed on (`undefined` or an error), or 'answered' if it never did. */
function run(handler: RequestHandler, settleAfter: Promise<unknown> = Promise.resolve()): Promise<unknown> {
  return new Promise((resolve) => {
    void handler(req, res, ((error?: unknown) => resolve(error)) as NextFunction);
    void settleAfter.then(() => setImmediate(() => resolve('answered')));
  });
}

describe('a middleware chain (chain)', () => {
  it('runs every handler in order, then hands on without an error', async () => {
    const seen: string[] = [];
    const step =
      (name: string): RequestHandler =>
      (_req, _res, next) => {
        seen.push(name);
        next();
      };
    expect(await run(chain(step('a'), step('b'), step('c')))).to.equal(undefined);
    expect(seen).to.deep.equal(['a', 'b', 'c']);
  });

  it('an error passed to next skips the handlers after it and is handed on', async () => {
    const failure = new Error('refused');
    let reached = false;
    const handed = await run(
      chain(
        (_req, _res, next) => next(failure),
        () => {
          reached = true;
        },
      ),
    );
    expect(handed).to.equal(failure);
    expect(reached).to.equal(false);
  });

  it('a handler that throws, or an async one that rejects, hands its error on', async () => {
    const thrown = new Error('thrown');
    const rejected = new Error('rejected');
    expect(
      await run(
        chain(() => {
          throw thrown;
        }),
      ),
    ).to.equal(thrown);
    expect(
      await run(
        chain(async () => {
          throw rejected;
        }),
      ),
    ).to.equal(rejected);
  });

  it('an async handler that calls next after awaiting continues the chain', async () => {
    const seen: string[] = [];
    const slow: RequestHandler = async (_req, _res, next) => {
      await Promise.resolve();
      seen.push('slow');
      next();
    };
    expect(
      await run(
        chain(slow, (_req, _res, next) => {
          seen.push('after');
          next();
        }),
      ),
    ).to.equal(undefined);
    expect(seen).to.deep.equal(['slow', 'after']);
  });

  it('a handler that answers without calling next ends the chain: nothing is handed on', async () => {
    let reached = false;
    expect(
      await run(
        chain(
          () => undefined,
          () => {
            reached = true;
          },
        ),
      ),
    ).to.equal('answered');
    expect(reached).to.equal(false);
  });
});
