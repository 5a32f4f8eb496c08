import * as z from 'zod';
import type { JsonSchema } from './operation';

/** A zod schema as the documents publish it: the JSON Schema and the named components it refers to. */
export interface PublishedSchema {
  readonly schema: JsonSchema;
  /** Schemas named with `.meta({ id })`, referred to as `#/components/schemas/<id>`. */
  readonly components: Readonly<Record<string, JsonSchema>>;
}

const COMPONENT_PREFIX = '#/components/schemas/';
const DEFS_REF = /^#\/\$defs\/(.+)$/;
/** The keys an object schema starts with, in the order the hand-written schemas always had them (a description last). */
const OBJECT_KEY_ORDER = ['type', 'additionalProperties', 'required', 'properties'];

const published = new WeakMap<z.ZodType, PublishedSchema>();

/**
 * The JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) of a zod schema, as `/openapi.json` publishes it
 * and the request validator enforces it. A part named with `.meta({ id })` becomes a component. The schema
 * must describe plain data: a default or a transform would make the body the handler receives differ from
 * the one the validator checked, so either throws here, when the registry is built.
 */
export function publishedSchema(type: z.ZodType): PublishedSchema {
  let known = published.get(type);
  if (!known) {
    known = convert(type);
    published.set(type, known);
  }
  return known;
}

function convert(type: z.ZodType): PublishedSchema {
  const options = { target: 'draft-2020-12', unrepresentable: 'throw', cycles: 'throw', reused: 'inline' } as const;
  const output = z.toJSONSchema(type, { ...options, io: 'output' }) as JsonSchema;
  const input = z.toJSONSchema(type, { ...options, io: 'input' }) as JsonSchema;
  if (JSON.stringify(output) !== JSON.stringify(input)) {
    throw new Error('an operation schema must be plain data: a default or a transform differs between what is sent and what is read');
  }
  const { $schema: _dialect, $defs, ...root } = output;
  const components: Record<string, JsonSchema> = {};
  for (const [name, definition] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>))
    components[name] = tidy(definition) as JsonSchema;
  // A schema that is itself named is published as its component, referred to by name.
  // zod writes a named root as a reference to its definition; should it not, the root is made one.
  const id = z.globalRegistry.get(type)?.id;
  if (id && !(id in components)) {
    components[id] = tidy(root) as JsonSchema;
    return { schema: { $ref: `${COMPONENT_PREFIX}${id}` }, components };
  }
  return { schema: tidy(root) as JsonSchema, components };
}

/** Refers to components instead of `$defs`, and orders an object schema's keys as the documents always had them. */
function tidy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(tidy);
  if (value === null || typeof value !== 'object') return value;
  const node = value as Record<string, unknown>;
  const first = 'properties' in node ? OBJECT_KEY_ORDER.filter((key) => key in node) : [];
  // A description goes last, wherever zod put it (before the type for `.optional().describe()`).
  const described = typeof node.description === 'string';
  const rest = Object.keys(node).filter((key) => !first.includes(key) && !(described && key === 'description'));
  const keys = [...first, ...rest, ...(described ? ['description'] : [])];
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    const child = node[key];
    const ref = key === '$ref' && typeof child === 'string' ? DEFS_REF.exec(child) : null;
    copy[key] = ref ? `${COMPONENT_PREFIX}${ref[1]}` : tidy(child);
  }
  return copy;
}

/**
 * The components the given schemas publish, merged; two different schemas under one name are a mistake
 * the registry refuses when it is built.
 */
export function mergeComponents(into: Record<string, JsonSchema>, from: Readonly<Record<string, JsonSchema>>): Record<string, JsonSchema> {
  for (const [name, schema] of Object.entries(from)) {
    const known = into[name];
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(schema)) throw new Error(`two different schemas are named ${name}`);
    into[name] = schema;
  }
  return into;
}
