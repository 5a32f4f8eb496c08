/**
 * The portability rules the MCP Inspector's `--strict` check applies to tool schemas, restated here so that
 * `npm test` enforces them without the Inspector among the dependencies:
 * - `type-union`: `type` is an array; hosts with a single-type dialect may reject the tool or drop the constraint.
 * - `remote-ref`: a `$ref` that does not point into the same document; clients do not fetch schemas.
 * - `untyped-schema`: a schema object with no validation keyword at all (accepts anything), except under `not`.
 * - `boolean-schema`: a bare `true`/`false` where a schema object is expected (allowed only as the value of
 *   `additionalProperties`, `unevaluatedProperties`, `additionalItems`, `unevaluatedItems`).
 */
export interface PortabilityFinding {
  readonly rule: 'type-union' | 'remote-ref' | 'untyped-schema' | 'boolean-schema';
  /** Dotted path from the schema's root, e.g. `properties.started_at`. */
  readonly path: string;
}

const BOOLEAN_ALLOWED = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);

/** Keywords that constrain the values a schema accepts (annotations such as `description` do not). */
const VALIDATION_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'contentMediaType',
  'contentEncoding',
  'contentSchema',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'items',
  'prefixItems',
  'contains',
  'additionalItems',
  'unevaluatedItems',
  'properties',
  'patternProperties',
  'additionalProperties',
  'unevaluatedProperties',
  'propertyNames',
  'dependentSchemas',
  'dependencies',
  '$ref',
  '$dynamicRef',
  '$recursiveRef',
]);

const MAP_KEYWORDS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const ARRAY_KEYWORDS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SINGLE_KEYWORDS = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'additionalItems',
  'unevaluatedItems',
  'contentSchema',
];

const join = (parent: string, key: string) => (parent === '' ? key : `${parent}.${key}`);
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every finding of the four rules in one tool schema. */
export function portabilityFindings(schema: unknown): PortabilityFinding[] {
  const findings: PortabilityFinding[] = [];
  const visit = (node: unknown, path: string, keyword: string | undefined): void => {
    if (typeof node === 'boolean') {
      if (keyword === undefined || !BOOLEAN_ALLOWED.has(keyword)) findings.push({ rule: 'boolean-schema', path });
      return;
    }
    if (!isObject(node)) return;
    if (Array.isArray(node.type)) findings.push({ rule: 'type-union', path });
    if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) findings.push({ rule: 'remote-ref', path });
    const constrains =
      Object.keys(node).some((key) => VALIDATION_KEYWORDS.has(key)) || ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not') findings.push({ rule: 'untyped-schema', path });

    for (const key of MAP_KEYWORDS) {
      if (isObject(node[key])) for (const [name, child] of Object.entries(node[key])) visit(child, join(join(path, key), name), key);
    }
    for (const key of ARRAY_KEYWORDS) {
      if (Array.isArray(node[key]))
        (node[key] as unknown[]).forEach((child, i) => {
          visit(child, `${join(path, key)}[${i}]`, key);
        });
    }
    for (const key of SINGLE_KEYWORDS) {
      if (!(key in node)) continue;
      const child = node[key];
      if (Array.isArray(child))
        child.forEach((item, i) => {
          visit(item, `${join(path, key)}[${i}]`, key);
        });
      else visit(child, join(path, key), key);
    }
  };
  visit(schema, '', undefined);
  return findings;
}
