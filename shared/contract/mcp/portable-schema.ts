import type { JsonSchema } from '../operations/operation';

/** Keywords that only constrain instances of one JSON type, so they belong in that type's branch. */
const KEYWORDS_BY_TYPE: Record<string, readonly string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentMediaType', 'contentEncoding', 'contentSchema'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  object: [
    'properties',
    'required',
    'additionalProperties',
    'patternProperties',
    'propertyNames',
    'minProperties',
    'maxProperties',
    'dependentRequired',
    'dependentSchemas',
    'unevaluatedProperties',
  ],
  array: ['items', 'prefixItems', 'contains', 'minItems', 'maxItems', 'uniqueItems', 'minContains', 'maxContains', 'unevaluatedItems'],
};
KEYWORDS_BY_TYPE.integer = KEYWORDS_BY_TYPE.number;
const TYPED_KEYWORDS = new Set(Object.values(KEYWORDS_BY_TYPE).flat());

/** Keywords whose value is a map of subschemas, an array of subschemas, or one subschema. */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const SCHEMA_ARRAYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SCHEMA_VALUES = [
  'items',
  'contains',
  'not',
  'propertyNames',
  'if',
  'then',
  'else',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentSchema',
];

/**
 * The same JSON Schema with every `type` array (`["string", "null"]`, how OpenAPI 3.1 writes a nullable field)
 * rewritten as an `anyOf` of single-type branches, each carrying the keywords that constrain its type. Both
 * forms accept exactly the same values; the single-type one is what hosts that map tool schemas onto a
 * one-type dialect (Gemini function declarations, OpenAPI 3.0 importers) understand, and what the MCP
 * Inspector's portability check asks for. The published OpenAPI document keeps the registry's form.
 */
export function portableSchema(schema: JsonSchema): JsonSchema {
  return portable(schema) as JsonSchema;
}

function portable(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  const node = withPortableSubschemas(value as Record<string, unknown>);
  return Array.isArray(node.type) ? splitTypes(node, node.type as unknown[]) : node;
}

/** A copy of the node whose subschemas (in maps, arrays and single values) are each made portable. */
function withPortableSubschemas(original: Record<string, unknown>): Record<string, unknown> {
  const node: Record<string, unknown> = { ...original };
  for (const key of SCHEMA_MAPS) {
    const map = node[key];
    if (isMap(map)) node[key] = Object.fromEntries(Object.entries(map).map(([name, sub]) => [name, portable(sub)]));
  }
  for (const key of SCHEMA_ARRAYS) if (Array.isArray(node[key])) node[key] = (node[key] as unknown[]).map(portable);
  for (const key of SCHEMA_VALUES) {
    if (key in node) node[key] = Array.isArray(node[key]) ? (node[key] as unknown[]).map(portable) : portable(node[key]);
  }
  return node;
}

function isMap(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `{type: [a, b], ...}` as `{anyOf: [{type: a, ...a's keywords}, {type: b, ...}], ...the rest}`. */
function splitTypes(node: Record<string, unknown>, types: unknown[]): Record<string, unknown> {
  const shared: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(node)) if (key !== 'type' && !TYPED_KEYWORDS.has(key)) shared[key] = child;
  const branches = types.map((type) => {
    const branch: Record<string, unknown> = { type };
    for (const key of KEYWORDS_BY_TYPE[String(type)] ?? []) if (key in node) branch[key] = node[key];
    return branch;
  });
  if (!('anyOf' in shared)) return { ...shared, anyOf: branches };
  // The node already has an anyOf: both must hold, so they meet in an allOf.
  const { anyOf, allOf, ...rest } = shared;
  return { ...rest, allOf: [...((allOf as unknown[] | undefined) ?? []), { anyOf }, { anyOf: branches }] };
}
