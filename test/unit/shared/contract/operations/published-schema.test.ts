import { expect } from 'chai';
import * as z from 'zod';
import { publishedSchema } from '../../../../../shared/contract/operations/published-schema';

describe('operation schemas declared with zod', () => {
  it('publish as draft 2020-12 JSON Schema in the documents’ key order (type, additionalProperties, required, properties; a description last)', () => {
    const { schema, components } = publishedSchema(
      z.strictObject({ name: z.string().min(1).max(20), note: z.string().max(5).optional().describe('A note.') }),
    );
    expect(components).to.deep.equal({});
    expect(JSON.stringify(schema)).to.equal(
      JSON.stringify({
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: { type: 'string', minLength: 1, maxLength: 20 },
          note: { type: 'string', maxLength: 5, description: 'A note.' },
        },
      }),
    );
  });

  it('a part named with .meta({ id }) becomes a component, referred to under #/components/schemas', () => {
    const Named = z.strictObject({ value: z.int().min(0).max(9) }).meta({ id: 'TypedOperationsNamed' });
    const { schema, components } = publishedSchema(z.strictObject({ named: Named }));
    expect((schema.properties as Record<string, unknown>).named).to.deep.equal({ $ref: '#/components/schemas/TypedOperationsNamed' });
    expect(components.TypedOperationsNamed).to.deep.equal({
      type: 'object',
      additionalProperties: false,
      required: ['value'],
      properties: { value: { type: 'integer', minimum: 0, maximum: 9 } },
    });
    expect(publishedSchema(Named).schema).to.deep.equal({ $ref: '#/components/schemas/TypedOperationsNamed' });
  });

  it('a default or a transform is refused: the handler gets the body as sent, so what is read must be what was checked', () => {
    expect(() => publishedSchema(z.strictObject({ size: z.int().default(3) }))).to.throw(/plain data/);
    expect(() => publishedSchema(z.strictObject({ size: z.string().transform((text) => text.length) }))).to.throw(/Transforms/);
  });
});
