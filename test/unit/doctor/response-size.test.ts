import { expect } from 'chai';
import { maximalSize } from '../../../doctor/response-size';

const DOCUMENT = {
  components: {
    schemas: {
      Name: { type: 'string', maxLength: 4 },
      Item: {
        type: 'object',
        properties: { name: { $ref: '#/components/schemas/Name' }, tags: { type: 'array', items: { type: 'string', maxLength: 1 } } },
      },
    },
  },
};

/** The length `maximalSize` gives, checked against the JSON of the value it should have built. */
const lengthOf = (value: unknown) => ({ length: JSON.stringify(value).length });

describe('the largest answer a response schema allows (maximalSize)', () => {
  it('builds every field at its widest: strings at maxLength, a bounded integer at its longer end, a date-time in full', () => {
    const schema = {
      type: 'object',
      properties: {
        id: { type: 'string', maxLength: 3 },
        count: { type: 'integer', minimum: -5, maximum: 100 },
        at: { type: 'string', format: 'date-time' },
        done: { type: ['boolean', 'null'] },
        state: { enum: ['ok', 'failed'] },
      },
    };
    expect(maximalSize(DOCUMENT, schema, undefined)).to.deep.equal(
      lengthOf({ id: 'xxx', count: 100, at: '2026-12-31T23:59:59.999Z', done: false, state: 'failed' }),
    );
  });

  it("follows $refs, and sizes a page's list at `listItems` while a list inside it keeps to its own maxItems", () => {
    const page = { type: 'object', properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } };
    expect(maximalSize(DOCUMENT, page, 2)).to.deep.equal({ unbounded: '.items[].tags' });
    const bounded = structuredClone(DOCUMENT);
    bounded.components.schemas.Item.properties.tags = { type: 'array', items: { type: 'string', maxLength: 1 }, maxItems: 3 } as never;
    const item = { name: 'xxxx', tags: ['x', 'x', 'x'] };
    expect(maximalSize(bounded, page, 2)).to.deep.equal(lengthOf({ items: [item, item] }));
  });

  it('takes the longest branch of an anyOf, and sizes a map by maxProperties names of propertyNames.maxLength', () => {
    const schema = {
      anyOf: [
        { type: 'string', maxLength: 2 },
        {
          type: 'object',
          additionalProperties: { type: 'integer', minimum: 0, maximum: 9 },
          maxProperties: 2,
          propertyNames: { maxLength: 3 },
        },
      ],
    };
    expect(maximalSize(DOCUMENT, schema, undefined)).to.deep.equal(lengthOf({ xx0: 9, xx1: 9 }));
  });

  it('names the first field without a bound, or the body itself', () => {
    expect(maximalSize(DOCUMENT, { type: 'object', properties: { note: { type: 'string' } } }, undefined)).to.deep.equal({
      unbounded: '.note',
    });
    expect(maximalSize(DOCUMENT, { type: 'object', additionalProperties: true }, undefined)).to.deep.equal({ unbounded: '.*' });
    expect(maximalSize(DOCUMENT, { type: 'array', items: { type: 'string', maxLength: 1 } }, undefined)).to.deep.equal({
      unbounded: '(the body)',
    });
    expect(maximalSize(DOCUMENT, { $ref: '#/components/schemas/Missing' }, undefined)).to.deep.equal({ unbounded: '(the body)' });
  });
});
