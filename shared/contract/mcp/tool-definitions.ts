import type { Principal } from '../../domain/connections/principal';
import { modelDescription } from '../operations/model-description';
import type { JsonSchema, Operation, OperationRequest } from '../operations/operation';
import { cardToolMeta } from './job-card/app-card';
import { inlineSchema } from './inline-schema';
import { portableSchema } from './portable-schema';

/** Where a tool argument goes in the operation's request. */
type ArgumentTarget = 'params' | 'query' | 'body';

/** MCP tool annotations (hints for the client; derived from the registry, never written by hand). */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  idempotentHint: boolean;
  destructiveHint: boolean;
  openWorldHint: boolean;
}

/** One registry operation seen as an MCP tool. */
export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  annotations: ToolAnnotations;
  /** The tool's `_meta`: the MCP Apps card its results are shown in, when its operation has one. */
  meta?: Record<string, unknown>;
  operation: Operation;
  /** Builds the operation's request from validated tool arguments. */
  toRequest(args: Record<string, unknown>, principal: Principal): OperationRequest;
}

/** The body field that carries an idempotency key for callers that cannot send headers (MCP clients). */
const IDEMPOTENCY_FIELD = 'idempotency_key';

/** `getMe` → `get_me`: the tool name of an operation. */
export function toolName(operationId: string): string {
  return operationId
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .toLowerCase();
}

/**
 * The MCP tools of the published operations, one per operation, in registry order. Path and query
 * parameters and the body's fields become top-level arguments; header parameters do not (MCP has no
 * per-call headers), which is why a paid operation's body `idempotency_key` becomes required here.
 */
export function buildToolDefinitions(published: readonly Operation[]): ToolDefinition[] {
  const names = new Set<string>();
  return published.map((operation) => {
    const tool = toolDefinition(operation);
    if (names.has(tool.name)) throw new Error(`two operations map to the tool name ${tool.name}`);
    names.add(tool.name);
    return tool;
  });
}

function toolDefinition(operation: Operation): ToolDefinition {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const targets = new Map<string, ArgumentTarget>();
  const add = (name: string, schema: JsonSchema, target: ArgumentTarget, isRequired: boolean) => {
    if (targets.has(name)) throw new Error(`${operation.operationId}: argument ${name} is defined twice`);
    targets.set(name, target);
    properties[name] = schema;
    if (isRequired) required.push(name);
  };

  for (const parameter of operation.parameters ?? []) {
    const location = parameter.in;
    if (location !== 'path' && location !== 'query') continue;
    const schema = { ...(parameter.schema as JsonSchema) };
    if (typeof parameter.description === 'string') schema.description ??= parameter.description;
    add(
      String(parameter.name),
      inlineSchema(schema),
      location === 'path' ? 'params' : 'query',
      location === 'path' || parameter.required === true,
    );
  }
  const body = operation.requestBody ? inlineSchema(operation.requestBody) : undefined;
  if (body) {
    const bodyRequired = new Set((body.required as string[] | undefined) ?? []);
    const paid = operation.price !== undefined;
    for (const [name, schema] of Object.entries((body.properties ?? {}) as Record<string, JsonSchema>)) {
      add(name, schema, 'body', bodyRequired.has(name) || (paid && name === IDEMPOTENCY_FIELD));
    }
  }

  const readOnly = operation.method === 'get';
  const success = Object.keys(operation.responses)
    .map(Number)
    .sort((a, b) => a - b)[0];
  return {
    name: toolName(operation.operationId),
    title: operation.summary,
    // The same composed description as /openapi.json and /llms.txt: the price is stated once.
    description: modelDescription(operation),
    // The registry's schemas, self-contained and in single-type form: what /openapi.json promises, spelled
    // so that every MCP host can read it.
    inputSchema: portableSchema({ type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false }),
    outputSchema: portableSchema(inlineSchema(operation.responses[success].schema)),
    annotations: {
      readOnlyHint: readOnly,
      // A paid operation takes an idempotency key: repeating the call with the same arguments repeats nothing.
      idempotentHint: readOnly || operation.price !== undefined,
      destructiveHint: operation.destructive ?? false,
      openWorldHint: operation.openWorld ?? false,
    },
    ...(operation.card ? { meta: cardToolMeta(operation.card) } : {}),
    operation,
    toRequest: (args, principal) => {
      const request: OperationRequest = { principal, body: {}, query: {}, params: {}, header: () => undefined };
      for (const [name, value] of Object.entries(args)) {
        const target = targets.get(name);
        if (target === 'params') request.params[name] = String(value);
        else if (target) (request[target] as Record<string, unknown>)[name] = value;
      }
      return request;
    },
  };
}
