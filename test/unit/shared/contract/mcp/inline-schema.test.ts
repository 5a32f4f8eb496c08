import { expect } from 'chai';
import { inlineSchema } from '../../../../../shared/contract/mcp/inline-schema';
import type { JsonSchema } from '../../../../../shared/contract/operations/operation';

const COMPONENTS: Record<string, JsonSchema> = {
  Money: { type: 'integer', minimum: 0 },
  Order: { type: 'object', properties: { total: { $ref: '#/components/schemas/Money' } } },
  Loop: { type: 'object', properties: { next: { $ref: '#/components/schemas/Loop' } } },
};

describe('inlineSchema', () => {
  it('a reference, nested in objects and arrays: replaced by a copy of the component, recursively', () => {
    const schema = { type: 'array', items: [{ $ref: '#/components/schemas/Order' }] } as unknown as JsonSchema;
    expect(inlineSchema(schema, COMPONENTS)).to.deep.equal({
      type: 'array',
      items: [{ type: 'object', properties: { total: { type: 'integer', minimum: 0 } } }],
    });
  });

  it("members beside a reference are kept over the component's", () => {
    const schema = { $ref: '#/components/schemas/Money', description: 'Credits', minimum: 1 } as unknown as JsonSchema;
    expect(inlineSchema(schema, COMPONENTS)).to.deep.equal({ type: 'integer', minimum: 1, description: 'Credits' });
  });

  it('the result shares no object with the components, and the input is left as it was', () => {
    const schema = { $ref: '#/components/schemas/Money' } as unknown as JsonSchema;
    const inlined = inlineSchema(schema, COMPONENTS) as Record<string, unknown>;
    inlined.minimum = 5;
    expect(COMPONENTS.Money).to.deep.equal({ type: 'integer', minimum: 0 });
    expect(schema).to.deep.equal({ $ref: '#/components/schemas/Money' });
  });

  it('an unknown component or a recursive one: throws, naming it', () => {
    expect(() => inlineSchema({ $ref: '#/components/schemas/Nope' } as unknown as JsonSchema, COMPONENTS)).to.throw(
      'unknown schema component: Nope',
    );
    expect(() => inlineSchema({ $ref: '#/components/schemas/Loop' } as unknown as JsonSchema, COMPONENTS)).to.throw(
      'recursive schema component: Loop -> Loop',
    );
  });

  it('a reference that is not to a component: left as it is', () => {
    const schema = { $ref: 'https://example.com/schema.json' } as unknown as JsonSchema;
    expect(inlineSchema(schema, COMPONENTS)).to.deep.equal({ $ref: 'https://example.com/schema.json' });
  });
});
