import { expect } from 'chai';
import { portableSchema } from '../../../../../shared/contract/mcp/portable-schema';
import type { JsonSchema } from '../../../../../shared/contract/operations/operation';

const portable = (schema: unknown) => portableSchema(schema as JsonSchema) as unknown;

describe('portableSchema (type arrays as single-type anyOf branches)', () => {
  it('a nullable string: anyOf a string branch with its keywords and a null branch; the rest stays outside', () => {
    expect(portable({ type: ['string', 'null'], maxLength: 10, description: 'Notes' })).to.deep.equal({
      description: 'Notes',
      anyOf: [{ type: 'string', maxLength: 10 }, { type: 'null' }],
    });
  });

  it('integer and number branches take the numeric keywords; object keywords go to the object branch', () => {
    expect(portable({ type: ['integer', 'object'], minimum: 1, properties: { a: { type: 'string' } } })).to.deep.equal({
      anyOf: [
        { type: 'integer', minimum: 1 },
        { type: 'object', properties: { a: { type: 'string' } } },
      ],
    });
  });

  it('nested subschemas (properties, items, allOf) are rewritten too', () => {
    const schema = {
      type: 'object',
      properties: { tags: { type: 'array', items: { type: ['string', 'null'] } } },
      allOf: [{ type: ['number', 'null'] }],
    };
    expect(portable(schema)).to.deep.equal({
      type: 'object',
      properties: { tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } } },
      allOf: [{ anyOf: [{ type: 'number' }, { type: 'null' }] }],
    });
  });

  it('a node that already has an anyOf: both must hold, so they meet in an allOf', () => {
    expect(portable({ type: ['string', 'null'], anyOf: [{ minLength: 1 }] })).to.deep.equal({
      allOf: [{ anyOf: [{ minLength: 1 }] }, { anyOf: [{ type: 'string' }, { type: 'null' }] }],
    });
  });

  it('a schema without type arrays: an equal copy, the input left unchanged', () => {
    const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] };
    const copy = structuredClone(schema);
    const result = portable(schema);
    expect(result).to.deep.equal(copy);
    expect(result).to.not.equal(schema);
    expect(schema).to.deep.equal(copy);
  });
});
