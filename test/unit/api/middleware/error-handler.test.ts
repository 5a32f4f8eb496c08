import { expect } from 'chai';
import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import { errorHandler } from '../../../../api/middleware/error-handler';
import { NotFoundError, ServiceUnavailableError } from '../../../../shared/platform/errors/problems';

/** Runs the handler on `error`; returns what was logged and the answer written (or destroyed). */
function answer(error: unknown, { headersSent = false } = {}) {
  const logged: Array<Record<string, unknown>> = [];
  const written: { status?: number; headers: Record<string, string>; type?: string; body?: string; destroyed: boolean } = {
    headers: {},
    destroyed: false,
  };
  const res = {
    headersSent,
    locals: { requestId: 'req-7', route: '/v1/me' },
    status: (code: number) => (written.status = code),
    set: (headers: Record<string, string>) => Object.assign(written.headers, headers),
    type: (type: string) => (written.type = type),
    send: (body: string) => (written.body = body),
    destroy: () => (written.destroyed = true),
  };
  const logger = { error: (fields: Record<string, unknown>) => logged.push(fields) } as unknown as Logger;
  errorHandler(logger)(error, { method: 'GET' } as Request, res as unknown as Response, () => {});
  return { logged, written };
}

describe('errorHandler (errors as problem+json)', () => {
  it('a deliberate 4xx: its status, headers and problem body with the request id; nothing logged', () => {
    const { logged, written } = answer(new NotFoundError());
    expect(written).to.include({ status: 404, type: 'application/problem+json', destroyed: false });
    expect(JSON.parse(written.body!)).to.include({ status: 404, request_id: 'req-7' });
    expect(logged).to.deep.equal([]);
  });

  it('an unexpected error: a bare 500 that does not carry its message, the error logged with the request id and route', () => {
    const bug = new Error('secret internals');
    const { logged, written } = answer(bug);
    expect(written.status).to.equal(500);
    expect(written.body).to.not.contain('secret internals');
    expect(logged).to.have.length(1);
    expect(logged[0]).to.include({ req_id: 'req-7', route: '/v1/me', method: 'GET', err: bug });
  });

  it('a deliberate 503 with a cause: the cause logged; a bare 503: nothing logged', () => {
    const cause = new Error('redis down');
    const withCause = Object.assign(new ServiceUnavailableError(), { cause });
    expect(answer(withCause).logged.map((fields) => fields.cause)).to.deep.equal([cause]);
    expect(answer(new ServiceUnavailableError()).logged).to.deep.equal([]);
  });

  it('an answer already started: the connection is destroyed, nothing more written', () => {
    const { written } = answer(new NotFoundError(), { headersSent: true });
    expect(written).to.deep.equal({ headers: {}, destroyed: true });
  });
});
