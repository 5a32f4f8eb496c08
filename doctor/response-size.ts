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
    return { length: JSON.stringify(maximal({ document, listItems, path: '', depth: 0 }, schema)).length };
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

/** Where the walk stands: the document, the bound of an unbounded list, the path so far and how deep it is. */
interface At {
  document: OpenApiJson;
  listItems: number | undefined;
  path: string;
  depth: number;
}

/** One level down, at `path`, with `listItems` as the bound of an unbounded list there. */
const below = (at: At, path: string, listItems: number | undefined): At => ({ ...at, listItems, path, depth: at.depth + 1 });

function maximal(at: At, value: unknown): unknown {
  const schema = resolve(at.document, value);
  if (!schema || at.depth > 32) throw new Unbounded(at.path);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return longest(schema.enum.map((item: unknown) => item));
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return longest(branches.map((branch: unknown) => maximal(below(at, at.path, at.listItems), branch)));
  const types: unknown[] = Array.isArray(schema.type) ? schema.type : [schema.type];
  return longest(types.map((type) => typed(at, String(type), schema)));
}

function typed(at: At, type: string, schema: Schema): unknown {
  switch (type) {
    case 'string':
      return maximalString(schema, at.path);
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
      return maximalArray(at, schema);
    case 'object':
      return maximalObject(at, schema);
    default:
      throw new Unbounded(at.path);
  }
}

function maximalString(schema: Schema, path: string): string {
  if (typeof schema.maxLength === 'number') return 'x'.repeat(schema.maxLength);
  if (schema.format === 'date-time') return DATE_TIME;
  if (schema.format === 'date') return DATE_TIME.slice(0, 10);
  throw new Unbounded(path);
}

function maximalArray(at: At, schema: Schema): unknown[] {
  const count = typeof schema.maxItems === 'number' ? schema.maxItems : at.listItems;
  if (count === undefined) throw new Unbounded(at.path);
  // Nested lists are bounded by their own maxItems only: the request's limit sizes the page.
  const item = maximal(below(at, `${at.path}[]`, undefined), schema.items);
  return Array.from({ length: count }, () => item);
}

function maximalObject(at: At, schema: Schema): Record<string, unknown> {
  const properties = Object.entries<unknown>(schema.properties ?? {});
  const object: Record<string, unknown> = {};
  for (const [name, property] of properties) object[name] = maximal(below(at, `${at.path}.${name}`, at.listItems), property);
  const extra = schema.additionalProperties;
  // An object that declares its fields and says nothing of others is sized by those it declares.
  if (extra === false || (extra === undefined && properties.length > 0)) return object;
  const count = schema.maxProperties;
  const nameLength = resolve(at.document, schema.propertyNames)?.maxLength;
  if (typeof count !== 'number' || typeof nameLength !== 'number' || typeof extra !== 'object') throw new Unbounded(`${at.path}.*`);
  const value = maximal(below(at, `${at.path}.*`, undefined), extra);
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
