import { expect } from 'chai';
import { problemBody, toAppError } from '../../../../api/http/problem';

/** The status, type slug and detail of what `toAppError` makes of `thrown`. */
function mapped(thrown: unknown) {
  const error = toAppError(thrown);
  return { status: error.status, type: error.type.split(/[/:]/).pop(), detail: error.message };
}

describe('toAppError (anything thrown, as an answer)', () => {
  it("the body parser's JSON error: a 400 saying the body is not JSON, not the parser's own message", () => {
    expect(mapped(Object.assign(new Error('Unexpected token } at 7'), { type: 'entity.parse.failed', status: 400 }))).to.deep.equal({
      status: 400,
      type: 'validation',
      detail: 'The body is not valid JSON.',
    });
  });

  it('a body over the limit: a 413 that states the limit the parser applied', () => {
    const error = toAppError({ type: 'entity.too.large', status: 413, limit: 2048 });
    expect(error.status).to.equal(413);
    expect(error.message).to.contain('2048');
  });

  it('an unsupported charset or encoding, or any 415: an unsupported media type answer', () => {
    for (const thrown of [{ type: 'charset.unsupported' }, { type: 'encoding.unsupported' }, { statusCode: 415 }])
      expect(toAppError(thrown).status, JSON.stringify(thrown)).to.equal(415);
  });

  it("the validator's 400 with field errors: each field kept, a missing path or message filled in", () => {
    const error = toAppError({ status: 400, errors: [{ path: '/body/name', message: 'must be string' }, {}] });
    expect(mapped(error)).to.deep.equal({ status: 400, type: 'validation', detail: 'The request does not match the schema.' });
    expect(error.errors).to.deep.equal([
      { path: '/body/name', message: 'must be string' },
      { path: '', message: 'is invalid' },
    ]);
  });

  it('a bare 400: a malformed request; anything else, null included: a 500', () => {
    expect(mapped({ status: 400 }).detail).to.equal('The request is malformed.');
    for (const thrown of [new Error('db down'), null, undefined, { status: 502 }])
      expect(toAppError(thrown).status, String(thrown)).to.equal(500);
  });

  it('an AppError: returned as it is', () => {
    const error = toAppError({ status: 400 });
    expect(toAppError(error)).to.equal(error);
  });
});

describe('problemBody (RFC 9457)', () => {
  it('the standard members from the error and the request id; no errors member when there are none', () => {
    const body = problemBody(toAppError({ status: 400 }), 'req-1');
    expect(body).to.include({ status: 400, detail: 'The request is malformed.', request_id: 'req-1' });
    expect(body.type).to.match(/validation$/);
    expect(body).to.not.have.property('errors');
  });

  it('field errors: listed under errors', () => {
    const body = problemBody(toAppError({ status: 400, errors: [{ path: '/x', message: 'is required' }] }), 'req-2');
    expect(body.errors).to.deep.equal([{ path: '/x', message: 'is required' }]);
  });

  it('an extension member named like a standard one cannot overwrite it', () => {
    const error = toAppError({ status: 400 });
    Object.defineProperty(error, 'extensions', { value: { status: 999, request_id: 'forged', balance: 3 } });
    expect(problemBody(error, 'req-3')).to.include({ status: 400, request_id: 'req-3', balance: 3 });
  });
});
