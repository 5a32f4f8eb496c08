import { expect } from 'chai';
import type { Request } from 'express';
import { echoRequestId, requestContext } from '../../../../api/middleware/request-context';
import { recordingResponse } from '../../../support/recording-response';

/** Runs the middleware for a request with this X-Request-Id; returns the id given and the state set. */
function contextOf(incoming: string | undefined) {
  const { res, headers } = recordingResponse();
  const req = { headers: incoming === undefined ? {} : { 'x-request-id': incoming } } as unknown as Request & { id?: string };
  let nexts = 0;
  requestContext(req, res, () => nexts++);
  echoRequestId(res);
  return { id: req.id, header: headers.get('x-request-id'), locals: res.locals, nexts };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestContext', () => {
  it('a sane X-Request-Id: kept as the id, echoed in the answer, and the request state starts unmatched', () => {
    const { id, header, locals, nexts } = contextOf('abc-123.x:y_z');
    expect([id, header, nexts]).to.deep.equal(['abc-123.x:y_z', 'abc-123.x:y_z', 1]);
    expect(locals).to.deep.equal({
      requestId: 'abc-123.x:y_z',
      route: 'unmatched',
      operation: undefined,
      params: undefined,
      principal: undefined,
      usage: undefined,
      heldRateLimits: undefined,
    });
  });

  it('no id, or one with spaces, quotes, newlines or over 128 characters: a new UUID instead', () => {
    for (const incoming of [undefined, '', 'has space', 'a"b', 'line\nbreak', 'x'.repeat(129)]) {
      const { id, header } = contextOf(incoming);
      expect(id, String(incoming)).to.match(UUID);
      expect(header).to.equal(id);
    }
  });

  it('requestContext alone sets no header: the id reaches the answer only when echoRequestId is called', () => {
    const { res, headers } = recordingResponse();
    const req = { headers: { 'x-request-id': 'abc' } } as unknown as Request;
    requestContext(req, res, () => undefined);
    expect(headers.has('x-request-id')).to.equal(false);
    echoRequestId(res);
    expect(headers.get('x-request-id')).to.equal('abc');
  });

  it('128 characters exactly: still accepted', () => {
    expect(contextOf('x'.repeat(128)).id).to.equal('x'.repeat(128));
  });

  it('two requests without an id: two different ids', () => {
    expect(contextOf(undefined).id).to.not.equal(contextOf(undefined).id);
  });
});
