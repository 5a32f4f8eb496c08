import fc from 'fast-check';

type Schema = Record<string, any>;

/** Long strings are left to the hostile arbitraries; schema-shaped ones stay short so runs stay fast. */
const MAX_GENERATED_LENGTH = 80;

function resolveRef(root: Schema, ref: string): Schema {
  return ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: any, key) => node?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], root);
}

function stringArbitrary(schema: Schema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? MAX_GENERATED_LENGTH, Math.max(min, MAX_GENERATED_LENGTH));
  // Years 0000-9999 only: a wider year is written ±YYYYYY, which RFC 3339 does not allow (not valid-shaped).
  if (schema.format === 'date-time')
    return fc
      .date({ min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
  if (schema.format === 'uri') return fc.webUrl();
  if (schema.pattern) {
    return fc
      .stringMatching(new RegExp(schema.pattern))
      .map((s) => s.slice(0, max))
      .filter((s) => s.length >= min && new RegExp(schema.pattern).test(s));
  }
  return fc.oneof(
    fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }),
    fc.string({ minLength: min, maxLength: max, unit: 'binary' }),
  );
}

/**
 * A fast-check arbitrary of values valid against a JSON Schema (the subset the registry uses: types and
 * type lists, enum, const, $ref, oneOf/anyOf, objects with required and optional properties, arrays,
 * string lengths, patterns and formats, integer bounds). `root` resolves `$ref`s.
 */
export function schemaArbitrary(schema: Schema, root: Schema): fc.Arbitrary<unknown> {
  if (schema.$ref) return schemaArbitrary(resolveRef(root, schema.$ref), root);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as unknown[]));
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) return fc.oneof(...alternatives.map((s: Schema) => schemaArbitrary(s, root)));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type: string) => schemaArbitrary({ ...schema, type }, root)));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1e9, max: schema.maximum ?? 1e9 });
    case 'number':
      return fc.double({ min: schema.minimum, max: schema.maximum, noNaN: true, noDefaultInfinity: true });
    case 'string':
      return stringArbitrary(schema);
    case 'array':
      return fc.array(schemaArbitrary(schema.items ?? {}, root), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object': {
      const properties: Record<string, Schema> = schema.properties ?? {};
      if (Object.keys(properties).length === 0)
        return fc.dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });
      const record: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [name, property] of Object.entries(properties)) record[name] = schemaArbitrary(property, root);
      return fc.record(record, { requiredKeys: schema.required ?? [] });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
