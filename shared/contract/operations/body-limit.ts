import type { JsonSchema, Operation } from './operation';
import { requestBodySchema, schemaComponents } from './registry-schemas';

/** The body limit of an operation whose schema allows no more: 64 KiB, as it always was. */
export const DEFAULT_BODY_LIMIT_BYTES = 64 * 1024;

/** What a JSON-RPC envelope adds around a tool's arguments (method, ids, `_meta` with the client's envelope). */
export const MCP_ENVELOPE_BYTES = 16 * 1024;

/*
 * The worst case of a body, in bytes of UTF-8: compact JSON (no whitespace between tokens) in which every
 * character of every string and key is written as an escape: `\uXXXX` (6 bytes) for a character of the basic
 * plane, a surrogate pair of escapes (12 bytes) for one beyond it, which JSON Schema's maxLength counts as one.
 * A number is counted as the longest a JSON encoder writes (24 bytes) with a margin. Unbounded (a string
 * without maxLength, an array without maxItems, an open object) is Infinity.
 */
const BYTES_PER_CHARACTER = 12;
const BYTES_PER_KEY_UNIT = 6;
const NUMBER_BYTES = 32;

/** The largest JSON value a schema allows, in bytes; Infinity when it does not bound it. */
export function worstCaseJsonBytes(schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>, depth = 0): number {
  if (depth > 32) return Number.POSITIVE_INFINITY;
  const resolved = resolveRef(schema, components);
  if (resolved === undefined) return Number.POSITIVE_INFINITY;
  if ('const' in resolved) return escapedBytes(JSON.stringify(resolved.const));
  if (Array.isArray(resolved.enum)) return Math.max(...resolved.enum.map((value) => escapedBytes(JSON.stringify(value))));
  const branches = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(branches)) return Math.max(...branches.map((branch) => worstCaseJsonBytes(branch, components, depth + 1)));
  const types = Array.isArray(resolved.type) ? resolved.type : [resolved.type];
  return Math.max(...types.map((type) => typedBytes(String(type), resolved, components, depth)));
}

function typedBytes(type: string, schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>, depth: number): number {
  switch (type) {
    case 'string':
      return typeof schema.maxLength === 'number' ? 2 + BYTES_PER_CHARACTER * schema.maxLength : Number.POSITIVE_INFINITY;
    case 'integer':
    case 'number':
      return NUMBER_BYTES;
    case 'boolean':
      return 5;
    case 'null':
      return 4;
    case 'array':
      return typeof schema.maxItems === 'number'
        ? 2 + schema.maxItems * (worstCaseJsonBytes((schema.items ?? {}) as JsonSchema, components, depth + 1) + 1)
        : Number.POSITIVE_INFINITY;
    case 'object':
      return objectBytes(schema, components, depth);
    default:
      return Number.POSITIVE_INFINITY;
  }
}

function objectBytes(schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>, depth: number): number {
  let total = 2;
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, JsonSchema>)) {
    total += 2 + BYTES_PER_KEY_UNIT * name.length + 1 + worstCaseJsonBytes(property, components, depth + 1) + 1;
  }
  const extra = schema.additionalProperties;
  if (extra === false) return total;
  // Other fields are allowed: bounded only by a count and a name length.
  const count = schema.maxProperties;
  const nameLength = (schema.propertyNames as JsonSchema | undefined)?.maxLength;
  if (typeof count !== 'number' || typeof nameLength !== 'number') return Number.POSITIVE_INFINITY;
  const value =
    typeof extra === 'object' && extra !== null ? worstCaseJsonBytes(extra as JsonSchema, components, depth + 1) : Number.POSITIVE_INFINITY;
  return total + count * (2 + BYTES_PER_CHARACTER * nameLength + 1 + value + 1);
}

function resolveRef(schema: JsonSchema, components: Readonly<Record<string, JsonSchema>>): JsonSchema | undefined {
  const ref = typeof schema.$ref === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(schema.$ref) : null;
  if (typeof schema.$ref === 'string' && !ref) return undefined;
  return ref ? components[ref[1]] : schema;
}

/** A JSON text with every character of its strings escaped: quotes and structure are a byte each. */
function escapedBytes(json: string): number {
  return [...json].reduce((bytes, character) => bytes + (character.length > 1 ? BYTES_PER_CHARACTER : BYTES_PER_KEY_UNIT), 0);
}

const limits = new WeakMap<Operation, number>();

/**
 * The largest body an operation accepts, in bytes: its own `bodyLimitBytes`, else the worst case of its body
 * schema (so any body the schema allows is read, however its characters are written), never below 64 KiB.
 */
export function bodyLimitOf(operation: Operation, components?: Readonly<Record<string, JsonSchema>>): number {
  let limit = limits.get(operation);
  if (limit === undefined) {
    const schema = requestBodySchema(operation);
    // The components are built only on a miss: a default parameter would build them on every request.
    const worst = schema ? worstCaseJsonBytes(schema, components ?? schemaComponents([operation])) : 0;
    limit = operation.bodyLimitBytes ?? Math.max(DEFAULT_BODY_LIMIT_BYTES, Number.isFinite(worst) ? Math.ceil(worst) : 0);
    limits.set(operation, limit);
  }
  return limit;
}

/**
 * The body limit of `/mcp`: 64 KiB, or, when a tool's operation takes more, that operation's limit plus the
 * JSON-RPC envelope around its arguments.
 */
export function mcpBodyLimit(operations: readonly Operation[]): number {
  const components = schemaComponents(operations);
  const largest = Math.max(0, ...operations.map((operation) => bodyLimitOf(operation, components)));
  return largest > DEFAULT_BODY_LIMIT_BYTES ? largest + MCP_ENVELOPE_BYTES : DEFAULT_BODY_LIMIT_BYTES;
}
