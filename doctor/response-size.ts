import type { OpenApiJson } from './context';

/**
 * The largest answer a response schema allows, as GPT Actions counts it: the characters of its JSON. Built
 * as a maximal value: every string at its maxLength (a date-time as long as RFC 3339 writes it), every number
 * at its widest, every optional field present, every list at its maxItems, or at `listItems` for a list
 * whose size the request's `limit` bounds. A field with no bound makes the answer unsizable: the result names it.
 */
export type Sized = { length: number } | { unbounded: string };

/** What a bound-less value is taken to be: the widest safe integer, the longest double JSON writes. */
const WIDEST_INTEGER = -9_007_199_254_740_991;
const WIDEST_NUMBER = -1.7976931348623157e308;
const DATE_TIME = '2026-12-31T23:59:59.999Z';

/** Sizes one response schema of `document`; `listItems` is how many items an unbounded list may hold. */
export function maximalSize(document: OpenApiJson, schema: unknown, listItems: number | undefined): Sized {
  try {
    return { length: JSON.stringify(maximal(document, schema, listItems, '', 0)).length };
  } catch (error) {
    if (error instanceof Unbounded) return { unbounded: error.path || '(the body)' };
    throw error;
  }
}

class Unbounded extends Error {
  constructor(readonly path: string) {
    super(`unbounded at ${path}`);
  }
}

type Schema = Record<string, any>;

function maximal(document: OpenApiJson, value: unknown, listItems: number | undefined, path: string, depth: number): unknown {
  const schema = resolve(document, value);
  if (!schema || depth > 32) throw new Unbounded(path);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return longest(schema.enum.map((item: unknown) => item));
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return longest(branches.map((branch: unknown) => maximal(document, branch, listItems, path, depth + 1)));
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  return longest(types.map((type) => typed(document, String(type), schema, listItems, path, depth)));
}

function typed(document: OpenApiJson, type: string, schema: Schema, listItems: number | undefined, path: string, depth: number): unknown {
  switch (type) {
    case 'string':
      return maximalString(schema, path);
    case 'integer':
      return typeof schema.maximum === 'number' && typeof schema.minimum === 'number'
        ? longest([schema.maximum, schema.minimum])
        : WIDEST_INTEGER;
    case 'number':
      return WIDEST_NUMBER;
    case 'boolean':
      return false;
    case 'null':
      return null;
    case 'array':
      return maximalArray(document, schema, listItems, path, depth);
    case 'object':
      return maximalObject(document, schema, listItems, path, depth);
    default:
      throw new Unbounded(path);
  }
}

function maximalString(schema: Schema, path: string): string {
  if (typeof schema.maxLength === 'number') return 'x'.repeat(schema.maxLength);
  if (schema.format === 'date-time') return DATE_TIME;
  if (schema.format === 'date') return DATE_TIME.slice(0, 10);
  throw new Unbounded(path);
}

function maximalArray(document: OpenApiJson, schema: Schema, listItems: number | undefined, path: string, depth: number): unknown[] {
  const count = typeof schema.maxItems === 'number' ? schema.maxItems : listItems;
  if (count === undefined) throw new Unbounded(path);
  // Nested lists are bounded by their own maxItems only: the request's limit sizes the page.
  const item = maximal(document, schema.items, undefined, `${path}[]`, depth + 1);
  return Array.from({ length: count }, () => item);
}

function maximalObject(
  document: OpenApiJson,
  schema: Schema,
  listItems: number | undefined,
  path: string,
  depth: number,
): Record<string, unknown> {
  const properties = Object.entries<unknown>(schema.properties ?? {});
  const object: Record<string, unknown> = {};
  for (const [name, property] of properties) object[name] = maximal(document, property, listItems, `${path}.${name}`, depth + 1);
  const extra = schema.additionalProperties;
  // An object that declares its fields and says nothing of others is sized by those it declares.
  if (extra === false || (extra === undefined && properties.length > 0)) return object;
  const count = schema.maxProperties;
  const nameLength = resolve(document, schema.propertyNames)?.maxLength;
  if (typeof count !== 'number' || typeof nameLength !== 'number' || typeof extra !== 'object') throw new Unbounded(`${path}.*`);
  const value = maximal(document, extra, undefined, `${path}.*`, depth + 1);
  for (let index = 0; index < count; index++) object[`${index}`.padStart(nameLength, 'x')] = value;
  return object;
}

/** The value whose JSON is longest. */
function longest(values: unknown[]): unknown {
  return values.reduce((best, value) => (JSON.stringify(value).length > JSON.stringify(best).length ? value : best));
}

/** Follows a local `$ref`; undefined for a missing target or a remote one. */
function resolve(document: OpenApiJson, value: unknown, depth = 0): Schema | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string') return value as Schema;
  if (!ref.startsWith('#/') || depth > 10) return undefined;
  let node: any = document;
  for (const part of ref.slice(2).split('/')) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return resolve(document, node, depth + 1);
}
