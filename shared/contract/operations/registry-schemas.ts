import type { JsonSchema, Operation } from './operation';
import { mergeComponents, publishedSchema } from './published-schema';
import { COMPONENT_SCHEMAS } from './schemas';

/** The JSON Schema of an operation's body, as published and enforced; undefined without a body. */
export function requestBodySchema(operation: Pick<Operation, 'requestBody'>): JsonSchema | undefined {
  return operation.requestBody ? publishedSchema(operation.requestBody).schema : undefined;
}

/**
 * Every component schema a registry's documents refer to: the shared ones and those its operations' schemas
 * name. The same map serves `/openapi.json` and the MCP tools, which inline it.
 */
export function schemaComponents(operations: readonly Operation[]): Record<string, JsonSchema> {
  const components = { ...COMPONENT_SCHEMAS };
  for (const operation of operations) {
    if (operation.requestBody) mergeComponents(components, publishedSchema(operation.requestBody).components);
  }
  return components;
}
