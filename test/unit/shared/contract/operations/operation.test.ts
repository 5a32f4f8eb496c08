import { expect } from 'chai';
import { bearerOperation, linkSecretOperation, type OperationResult } from '../../../../../shared/contract/operations/operation';

const PARTS = {
  operationId: 'getThing',
  method: 'get',
  path: '/v1/things/{id}',
  summary: 'Get a thing',
  description: 'Reads a thing.',
  published: true,
  consequential: false,
  responses: { 200: { description: 'The thing.' } },
  errors: [404],
  handle: async (): Promise<OperationResult> => ({ status: 200, body: {} }),
} as const;

describe('operation builders', () => {
  it('bearerOperation: the declaration as given, with the bearer scheme', () => {
    const operation = bearerOperation(PARTS as never);
    expect(operation).to.deep.include({ ...PARTS, auth: 'bearer' });
    expect(operation.handle).to.equal(PARTS.handle);
  });

  it('linkSecretOperation: the declaration as given, with the link-secret scheme', () => {
    expect(linkSecretOperation(PARTS as never).auth).to.equal('link-secret');
  });

  it('the declaration itself is left as it was (a copy is returned)', () => {
    const declared = { ...PARTS };
    const operation = bearerOperation(declared as never);
    expect(operation).to.not.equal(declared);
    expect(declared).to.not.have.property('auth');
  });
});
