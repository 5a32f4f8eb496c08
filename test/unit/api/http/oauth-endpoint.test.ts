import { expect } from 'chai';
import type { Request, Response } from 'express';
import { state } from '../../../../api/http/locals';
import { oauthEndpoint } from '../../../../api/http/oauth-endpoint';

/** Runs the middleware for `method`; returns the headers set, the status ended with, and whether next ran. */
function run(method: string) {
  const headers: Record<string, string> = {};
  const written: { status?: number; ended: boolean } = { ended: false };
  const res = {
    locals: { route: 'unmatched' },
    set: (values: Record<string, string>) => Object.assign(headers, values),
    status(code: number) {
      written.status = code;
      return res;
    },
    end: () => {
      written.ended = true;
    },
  };
  let nexts = 0;
  oauthEndpoint('/oauth/token')({ method } as Request, res as unknown as Response, () => nexts++);
  return { headers, written, nexts, route: state(res as unknown as Response).route };
}

describe('oauthEndpoint', () => {
  it('a POST: route labelled, no caching, CORS for any origin, then on to the handler', () => {
    const { headers, written, nexts, route } = run('POST');
    expect(route).to.equal('/oauth/token');
    expect(headers).to.deep.equal({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' });
    expect([nexts, written.ended]).to.deep.equal([1, false]);
  });

  it('a preflight (OPTIONS): answered here with 204 and the allowed methods and headers, not passed on', () => {
    const { headers, written, nexts } = run('OPTIONS');
    expect(headers).to.include({
      'Access-Control-Allow-Methods': 'GET, POST',
      'Access-Control-Allow-Headers': 'authorization, content-type, mcp-protocol-version',
      'Access-Control-Max-Age': '600',
    });
    expect([written.status, written.ended, nexts]).to.deep.equal([204, true, 0]);
  });
});
