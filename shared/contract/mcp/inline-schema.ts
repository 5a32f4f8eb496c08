import type { JsonSchema } from '../operations/operation';
import { COMPONENT_SCHEMAS } from '../operations/schemas';

const COMPONENT_REF = /^#\/components\/schemas\/(.+)$/;

/**
 * Replaces every `#/components/schemas/...` reference with a copy of the component, so a schema stands on
 * its own outside the OpenAPI document (MCP tool schemas are self-contained JSON Schemas, and several
 * clients do not follow `$ref`). The registry's schemas are not recursive; a cycle would be a bug, so it throws.
 */
export function inlineSchema(schema: JsonSchema, components: Record<string, JsonSchema> = COMPONENT_SCHEMAS): JsonSchema {
  return inline(schema, components, []) as JsonSchema;
}

function inline(value: unknown, components: Record<string, JsonSchema>, trail: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => inline(item, components, trail));
  if (value === null || typeof value !== 'object') return value;
  const object = value as Record<string, unknown>;
  const match = typeof object.$ref === 'string' ? COMPONENT_REF.exec(object.$ref) : null;
  if (match) {
    const name = match[1];
    if (trail.includes(name)) throw new Error(`recursive schema component: ${[...trail, name].join(' -> ')}`);
    const component = components[name];
    if (!component) throw new Error(`unknown schema component: ${name}`);
    const { $ref: _ref, ...siblings } = object;
    return { ...(inline(component, components, [...trail, name]) as object), ...siblings };
  }
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(object)) copy[key] = inline(child, components, trail);
  return copy;
}
