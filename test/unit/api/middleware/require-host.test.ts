import { expect } from 'chai';
import type { Request, Response } from 'express';
import { requireHost } from '../../../../api/middleware/require-host';

/** What `requireHost` hands to `next` for a request of this version and headers. */
function passed(httpVersion: string, headers: Record<string, string>): unknown[] {
  const calls: unknown[][] = [];
  requireHost({ httpVersion, headers } as unknown as Request, {} as Response, (...args: unknown[]) => calls.push(args));
  expect(calls, 'next is called exactly once').to.have.length(1);
  return calls[0];
}

describe('requireHost', () => {
  it('an HTTP/1.1 request without Host: next gets a 400 error naming the header', () => {
    const [error] = passed('1.1', {});
    expect(error).to.be.instanceOf(Error);
    expect((error as { status?: number }).status).to.equal(400);
    expect((error as Error).message).to.equal('An HTTP/1.1 request needs a Host header.');
  });

  it('an HTTP/1.1 request with Host: next is called with no error', () => {
    expect(passed('1.1', { host: 'api.example.com' })).to.deep.equal([]);
  });

  it('an HTTP/1.0 request without Host: accepted, the header being optional there', () => {
    expect(passed('1.0', {})).to.deep.equal([]);
  });
});
