import type { Principal } from '../../domain/connections/principal';
import { cardToolMeta } from '../cards/app-card';
import { modelDescription } from '../operations/model-description';
import type { BearerOperation, BearerRequest, JsonSchema, Operation } from '../operations/operation';
import { IDEMPOTENCY_FIELD } from '../operations/paid-body';
import { requestBodySchema, schemaComponents } from '../operations/registry-schemas';
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
  /** A tool is called with the person's bearer token, so its operation is a bearer one. */
  operation: BearerOperation;
  /** Builds the operation's request from validated tool arguments. */
  toRequest(args: Record<string, unknown>, principal: Principal): BearerRequest;
  /** The request body the arguments make (what a paid call's price is read from, through `jobInputOf`). */
  bodyOf(args: Record<string, unknown>): Record<string, unknown>;
}

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
 * per-call headers), which is why a paid operation's `idempotency_key` (its body field, or for a top-level
 * body its query parameter) becomes a required argument here, beside the input's.
 * `components` are the schemas the operations refer to (default: those of `published`), inlined.
 */
export function buildToolDefinitions(
  published: readonly Operation[],
  components: Record<string, JsonSchema> = schemaComponents(published),
): ToolDefinition[] {
  const names = new Set<string>();
  return published.map((operation) => {
    if (operation.auth !== 'bearer') throw new Error(`${operation.operationId}: only a bearer operation can be published as a tool`);
    const tool = toolDefinition(operation, components);
    if (names.has(tool.name)) throw new Error(`two operations map to the tool name ${tool.name}`);
    names.add(tool.name);
    return tool;
  });
}

/** The tool's arguments: their schemas, which are required, and where each goes in the request. */
interface ToolArguments {
  properties: Record<string, JsonSchema>;
  required: string[];
  targets: Map<string, ArgumentTarget>;
}

/** Path and query parameters, then the body's fields, each a top-level argument; a name used twice is a mistake. */
function toolArguments(operation: BearerOperation, components: Record<string, JsonSchema>): ToolArguments {
  const found: ToolArguments = { properties: {}, required: [], targets: new Map() };
  for (const argument of [...parameterArguments(operation, components), ...bodyArguments(operation, components)]) {
    if (found.targets.has(argument.name)) throw new Error(`${operation.operationId}: argument ${argument.name} is defined twice`);
    found.targets.set(argument.name, argument.target);
    found.properties[argument.name] = argument.schema;
    if (argument.required) found.required.push(argument.name);
  }
  return found;
}

/** One tool argument: its name, schema, where it goes, and whether it is required. */
interface ToolArgument {
  name: string;
  schema: JsonSchema;
  target: ArgumentTarget;
  required: boolean;
}

/** The path and query parameters (a path one is always required); header parameters have no argument. */
function parameterArguments(operation: BearerOperation, components: Record<string, JsonSchema>): ToolArgument[] {
  return (operation.parameters ?? []).flatMap((parameter) => {
    const location = parameter.in;
    if (location !== 'path' && location !== 'query') return [];
    const schema = { ...(parameter.schema as JsonSchema) };
    if (typeof parameter.description === 'string') schema.description ??= parameter.description;
    const required = location === 'path' || parameter.required === true || isPaidKey(operation, String(parameter.name));
    return [
      {
        name: String(parameter.name),
        schema: inlineSchema(schema, components),
        target: location === 'path' ? 'params' : 'query',
        required,
      },
    ];
  });
}

/** The body's fields; a paid operation's `idempotency_key` is required here, as MCP has no headers to carry it. */
function bodyArguments(operation: BearerOperation, components: Record<string, JsonSchema>): ToolArgument[] {
  const declared = requestBodySchema(operation);
  if (!declared) return [];
  const body = inlineSchema(declared, components);
  const required = new Set((body.required as string[] | undefined) ?? []);
  return Object.entries((body.properties ?? {}) as Record<string, JsonSchema>).map(([name, schema]) => ({
    name,
    schema,
    target: 'body' as const,
    required: required.has(name) || isPaidKey(operation, name),
  }));
}

/** A paid operation's key argument: required over MCP, which has no header to carry it instead. */
function isPaidKey(operation: BearerOperation, name: string): boolean {
  return operation.price !== undefined && name === IDEMPOTENCY_FIELD;
}

/** The request's parts that tool arguments fill. */
interface RequestParts {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: Record<string, unknown>;
}

/** Splits arguments that passed the tool's schema into the request's parts: each to where it belongs. */
function partsOf(targets: ReadonlyMap<string, ArgumentTarget>, args: Record<string, unknown>): RequestParts {
  const parts: RequestParts = { params: {}, query: {}, body: {} };
  for (const [name, value] of Object.entries(args)) {
    const target = targets.get(name);
    if (target === 'params') parts.params[name] = String(value);
    else if (target) parts[target][name] = value;
  }
  return parts;
}

function annotationsOf(operation: BearerOperation): ToolAnnotations {
  const readOnly = operation.method === 'get';
  return {
    readOnlyHint: readOnly,
    // A paid operation takes an idempotency key: repeating the call with the same arguments repeats nothing.
    idempotentHint: readOnly || operation.price !== undefined,
    destructiveHint: operation.destructive ?? false,
    openWorldHint: operation.openWorld ?? false,
  };
}

function toolDefinition(operation: BearerOperation, components: Record<string, JsonSchema>): ToolDefinition {
  const { properties, required, targets } = toolArguments(operation, components);
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
    outputSchema: portableSchema(inlineSchema(operation.responses[success].schema, components)),
    annotations: annotationsOf(operation),
    ...(operation.card ? { meta: cardToolMeta(operation.card) } : {}),
    operation,
    toRequest: (args, principal) => ({ principal, ...partsOf(targets, args), header: () => undefined }),
    bodyOf: (args) => partsOf(targets, args).body,
  };
}
