import { expect } from 'chai';
import type { Request, Response } from 'express';
import { state } from '../../../../api/http/locals';
import { matchOperation } from '../../../../api/middleware/match-operation';
import type { Operation } from '../../../../shared/contract/operations/operation';

const operation = (method: string, path: string) => ({ method, path, operationId: `${method} ${path}` }) as unknown as Operation;
const OPERATIONS = [
  operation('get', '/v1/jobs/{id}'),
  operation('delete', '/v1/jobs/{id}'),
  operation('get', '/v1/me'),
  operation('post', '/v1/a.b'),
];

/** Matches `method path`; returns the request state and what next received. */
function match(method: string, path: string) {
  const res = { locals: {} } as unknown as Response;
  const passed: unknown[] = [];
  matchOperation(OPERATIONS)({ method, path } as Request, res, (error?: unknown) => passed.push(error));
  return { locals: state(res), passed };
}

describe('matchOperation (the registry as the route table)', () => {
  it('a known path and method: the operation, its route template and its decoded parameters, next with no error', () => {
    const { locals, passed } = match('GET', '/v1/jobs/job%20one');
    expect(passed).to.deep.equal([undefined]);
    expect(locals.route).to.equal('/v1/jobs/{id}');
    expect(locals.operation?.operationId).to.equal('get /v1/jobs/{id}');
    expect(locals.params).to.deep.equal({ id: 'job one' });
  });

  it('a known path with another method: 405 listing the allowed methods, sorted, the route still recorded', () => {
    const { locals, passed } = match('PUT', '/v1/jobs/j1');
    expect((passed[0] as { status: number }).status).to.equal(405);
    expect((passed[0] as { headers: Record<string, string> }).headers.Allow).to.equal('DELETE, GET');
    expect(locals.route).to.equal('/v1/jobs/{id}');
    expect(locals.operation).to.equal(undefined);
  });

  it('an unknown path, an empty or extra segment: 404', () => {
    for (const path of ['/v1/nothing', '/v1/jobs/', '/v1/jobs/a/b', '/v1/me/'])
      expect((match('GET', path).passed[0] as { status: number }).status, path).to.equal(404);
  });

  it('a parameter that is not valid percent-encoding: 404, no operation set', () => {
    const { locals, passed } = match('GET', '/v1/jobs/%E0%A4%A');
    expect((passed[0] as { status: number }).status).to.equal(404);
    expect(locals.operation).to.equal(undefined);
  });

  it('a dot in a template is a literal dot, not any character', () => {
    expect(match('POST', '/v1/a.b').passed).to.deep.equal([undefined]);
    expect((match('POST', '/v1/aXb').passed[0] as { status: number }).status).to.equal(404);
  });
});
