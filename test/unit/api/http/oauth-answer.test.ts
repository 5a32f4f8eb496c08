import { expect } from 'chai';
import type { Request, Response } from 'express';
import { oauthErrorHandler } from '../../../../api/http/oauth-answer';
import { OAuthProtocolError } from '../../../../shared/domain/oauth/oauth-protocol-error';
import { NotFoundError, RateLimitedError, ServiceUnavailableError } from '../../../../shared/platform/errors/problems';

/** What the handler did with `error`: the answer it wrote, or what it passed on to the next error handler. */
function handle(error: unknown, options: { headersSent?: boolean } = {}) {
  const answer: { status?: number; headers: Record<string, string>; body?: unknown } = { headers: {} };
  const passed: unknown[] = [];
  const res = {
    headersSent: options.headersSent ?? false,
    status(code: number) {
      answer.status = code;
      return res;
    },
    set(name: string | Record<string, string>, value?: string) {
      Object.assign(answer.headers, typeof name === 'string' ? { [name]: value } : name);
      return res;
    },
    json(body: unknown) {
      answer.body = body;
      return res;
    },
  };
  oauthErrorHandler(error, {} as Request, res as unknown as Response, (next?: unknown) => passed.push(next));
  return { answer, passed };
}

describe('oauthErrorHandler (RFC 6749 error answers)', () => {
  it('an OAuthProtocolError: its status and headers, {error, error_description}, never cached', () => {
    const { answer, passed } = handle(
      new OAuthProtocolError('invalid_client', 'client authentication failed', 401, { 'WWW-Authenticate': 'Basic' }),
    );
    expect(passed).to.deep.equal([]);
    expect(answer).to.deep.equal({
      status: 401,
      headers: { 'WWW-Authenticate': 'Basic', 'Cache-Control': 'no-store' },
      body: { error: 'invalid_client', error_description: 'client authentication failed' },
    });
  });

  it("a 4xx error of the service: invalid_request with the service's status and message", () => {
    const error = new NotFoundError();
    const { answer } = handle(error);
    expect(answer.status).to.equal(404);
    expect(answer.body).to.deep.equal({ error: 'invalid_request', error_description: error.message });
  });

  it('a 429 or a 503: temporarily_unavailable, the status and its Retry-After kept', () => {
    for (const error of [new RateLimitedError(30), new ServiceUnavailableError(5)]) {
      const { answer } = handle(error);
      expect(answer.status).to.equal(error.status);
      expect((answer.body as { error: string }).error).to.equal('temporarily_unavailable');
      expect(answer.headers['Retry-After'] ?? answer.headers['retry-after'], String(error.status)).to.not.equal(undefined);
    }
  });

  it("the body parser's errors: invalid_request, 413 for a body too large and 400 otherwise, without its message", () => {
    const tooLarge = handle(Object.assign(new Error('request entity too large'), { status: 413, type: 'entity.too.large' })).answer;
    const broken = handle(Object.assign(new Error('Unexpected token'), { status: 400, type: 'entity.parse.failed' })).answer;
    expect([tooLarge.status, broken.status]).to.deep.equal([413, 400]);
    expect(broken.body).to.deep.equal({ error: 'invalid_request', error_description: 'the request body could not be read' });
  });

  it('anything unexpected, or an answer already started: passed on untouched, nothing written', () => {
    for (const [error, options] of [
      [new Error('bug'), {}],
      [new OAuthProtocolError('invalid_grant', 'used code'), { headersSent: true }],
    ] as const) {
      const { answer, passed } = handle(error, options);
      expect(passed).to.deep.equal([error]);
      expect(answer.status).to.equal(undefined);
    }
  });
});
