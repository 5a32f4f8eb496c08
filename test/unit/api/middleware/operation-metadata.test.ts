import { expect } from 'chai';
import type { Request, Response } from 'express';
import type { OpenApiContext } from 'express-openapi-validator/dist/framework/openapi.context';
import type { OpenApiRequest } from 'express-openapi-validator/dist/framework/types';
import { state } from '../../../../api/http/locals';
import { operationMetadata } from '../../../../api/middleware/operation-metadata';
import type { Operation } from '../../../../shared/contract/operations/operation';

const operation = (method: string, path: string) => ({ method, path, operationId: `${method} ${path}` }) as unknown as Operation;
const GET_JOB = operation('get', '/v1/jobs/{id}');
const CANCEL_JOB = operation('delete', '/v1/jobs/{id}');
const UNDOCUMENTED = operation('get', '/v1/hidden');

/** The two entries of the document a validator's context maps, as express-openapi-validator 5 builds them. */
const getSchema = { operationId: 'getJob', parameters: [{ name: 'id', in: 'path' }] };
const CONTEXT = {
  serial: 7,
  openApiRouteMap: {
    '/v1/jobs/{id}': { _expressRoute: '/v1/jobs/:id', _openApiRoute: '/v1/jobs/{id}', basePath: '', GET: getSchema },
  },
} as unknown as OpenApiContext;

/** Runs the step for a request the registry matched to `matched`, with its decoded parameters. */
function run(matched: Operation | undefined, params?: Record<string, string>) {
  const req = { params: {} } as unknown as Request;
  const res = { locals: {} } as unknown as Response;
  Object.assign(state(res), { operation: matched, params });
  const passed: unknown[] = [];
  operationMetadata(CONTEXT)(req, res, (error?: unknown) => passed.push(error));
  return { openapi: (req as OpenApiRequest).openapi, params: req.params, passed };
}

describe('operationMetadata (the validator told the operation the registry matched)', () => {
  it('a documented operation: its route forms, its own method’s entry, the serial and the decoded parameters; next with no error', () => {
    const { openapi, params, passed } = run(GET_JOB, { id: 'job one' });
    expect(openapi).to.deep.equal({
      expressRoute: '/v1/jobs/:id',
      openApiRoute: '/v1/jobs/{id}',
      schema: getSchema,
      serial: 7,
      pathParams: { id: 'job one' },
    });
    expect(openapi?.schema).to.equal(getSchema);
    expect(params).to.deep.equal({ id: 'job one' });
    expect(passed).to.deep.equal([undefined]);
  });

  it('a path the document has without this method, an undocumented path, or no operation: no metadata, next with no error', () => {
    for (const matched of [CANCEL_JOB, UNDOCUMENTED, undefined]) {
      const { openapi, passed } = run(matched, { id: 'j' });
      expect(openapi, String(matched?.operationId)).to.equal(undefined);
      expect(passed).to.deep.equal([undefined]);
    }
  });

  it('the same operation on two requests: the same entry, each with its own parameters', () => {
    const first = run(GET_JOB, { id: 'a' });
    const second = run(GET_JOB, { id: 'b' });
    expect(second.openapi?.schema).to.equal(first.openapi?.schema);
    expect([first.openapi?.pathParams, second.openapi?.pathParams]).to.deep.equal([{ id: 'a' }, { id: 'b' }]);
  });
});
