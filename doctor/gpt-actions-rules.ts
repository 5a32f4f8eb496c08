import { allOf, type CheckResult, fail, pass, warn } from './check-result';
import { type DocumentOperation, documentOperations, label, type OpenApiJson } from './context';
import { maximalSize } from './response-size';

/*
 * The GPT Actions import rules, applied to the published document. The limits are OpenAI's documented
 * ones ("Production notes on GPT Actions"); docs/checking-a-deployment.md's rules table lists each with
 * its reason and source.
 */

/** Longest operation description or summary GPT Actions accepts. */
export const MAX_OPERATION_DESCRIPTION = 300;
/** Longest parameter description GPT Actions accepts. */
export const MAX_PARAMETER_DESCRIPTION = 700;
/** Most operations one GPT action imports. */
export const MAX_OPERATIONS = 30;
/** Request and response payloads must stay under this many characters. */
export const MAX_PAYLOAD_CHARS = 100_000;
/** What an operationId may look like (GPT Actions turns it into a function name). */
export const OPERATION_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/** Headers an Actions client sends by itself; any other header parameter is a custom header. */
const CLIENT_HEADERS = new Set(['authorization', 'content-type', 'accept']);

/** Applies every GPT Actions rule to a document. Pure: the same document always gives the same lines. */
export function gptActionsRules(document: OpenApiJson): CheckResult[] {
  const operations = documentOperations(document);
  return [
    operationIds(operations),
    descriptionLengths(operations),
    parameterDescriptionLengths(document, operations),
    operationCount(operations),
    security(document, operations),
    customHeaders(document, operations),
    responseSize(document, operations),
  ];
}

function operationIds(operations: DocumentOperation[]): CheckResult {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const op of operations) {
    const id = op.operation.operationId;
    if (typeof id !== 'string') problems.push(`${label(op)} has no operationId`);
    else if (!OPERATION_ID_PATTERN.test(id)) problems.push(`${label(op)}: operationId "${id}" must match ${OPERATION_ID_PATTERN.source}`);
    else if (seen.has(id)) problems.push(`operationId "${id}" is used twice`);
    if (typeof id === 'string') seen.add(id);
  }
  return allOf('actions.operation-id', problems, `${operations.length} operations, each with a unique operationId`);
}

function descriptionLengths(operations: DocumentOperation[]): CheckResult {
  const problems: string[] = [];
  for (const op of operations) {
    const { description, summary } = op.operation;
    if (typeof description !== 'string' || description.trim() === '') problems.push(`${label(op)} has no description`);
    else if (description.length > MAX_OPERATION_DESCRIPTION) {
      problems.push(`${label(op)}: description is ${description.length} characters (max ${MAX_OPERATION_DESCRIPTION})`);
    }
    if (typeof summary === 'string' && summary.length > MAX_OPERATION_DESCRIPTION) {
      problems.push(`${label(op)}: summary is ${summary.length} characters (max ${MAX_OPERATION_DESCRIPTION})`);
    }
  }
  return allOf(
    'actions.description-length',
    problems,
    `every operation description and summary is at most ${MAX_OPERATION_DESCRIPTION} characters`,
  );
}

function parameterDescriptionLengths(document: OpenApiJson, operations: DocumentOperation[]): CheckResult {
  const problems: string[] = [];
  for (const op of operations) {
    for (const parameter of parametersOf(document, op)) {
      const description = parameter.description;
      if (typeof description === 'string' && description.length > MAX_PARAMETER_DESCRIPTION) {
        problems.push(
          `${label(op)}: parameter ${parameter.name} description is ${description.length} characters (max ${MAX_PARAMETER_DESCRIPTION})`,
        );
      }
    }
  }
  return allOf(
    'actions.parameter-description-length',
    problems,
    `every parameter description is at most ${MAX_PARAMETER_DESCRIPTION} characters`,
  );
}

function operationCount(operations: DocumentOperation[]): CheckResult {
  if (operations.length === 0) return fail('actions.operation-count', 'the document has no operations');
  if (operations.length > MAX_OPERATIONS) {
    return fail('actions.operation-count', `${operations.length} operations; a GPT action imports at most ${MAX_OPERATIONS}`);
  }
  return pass('actions.operation-count', `${operations.length} operations (max ${MAX_OPERATIONS})`);
}

function security(document: OpenApiJson, operations: DocumentOperation[]): CheckResult {
  const schemes = document.components?.securitySchemes ?? {};
  const problems = operations.flatMap((op) => securityProblems(op, op.operation.security ?? document.security, schemes));
  if (problems.length > 0) return fail('actions.security', problems.join('; '));
  const inherited = operations.filter((op) => op.operation.security === undefined && document.security !== undefined).length;
  if (inherited > 0)
    return warn('actions.security', `${inherited} operations rely on the document-wide security; declare it per operation`);
  return pass('actions.security', 'every operation declares its security scheme');
}

/** What is wrong with one operation's security requirements: none, an empty one, or an undefined scheme. */
function securityProblems(op: DocumentOperation, requirements: unknown, schemes: Record<string, unknown>): string[] {
  if (!Array.isArray(requirements) || requirements.length === 0) return [`${label(op)} declares no security`];
  return requirements.flatMap((requirement) => {
    const names = Object.keys(requirement ?? {});
    if (names.length === 0) return [`${label(op)} allows anonymous calls`];
    return names.filter((name) => !(name in schemes)).map((name) => `${label(op)} uses undefined scheme "${name}"`);
  });
}

function customHeaders(document: OpenApiJson, operations: DocumentOperation[]): CheckResult {
  const problems: string[] = [];
  for (const op of operations) {
    for (const parameter of parametersOf(document, op)) {
      if (parameter.in !== 'header' || CLIENT_HEADERS.has(String(parameter.name).toLowerCase())) continue;
      const name = String(parameter.name);
      if (parameter.required === true) {
        problems.push(`${label(op)} requires header ${name}, which an Actions client cannot send`);
      } else if (!bodyFieldFor(document, op, name) && !queryParameterFor(document, op, name)) {
        problems.push(
          `${label(op)}: header ${name} has no request-body field or query parameter (${bodyFieldName(name)}) for clients that cannot send headers`,
        );
      }
    }
  }
  return allOf('actions.custom-headers', problems, 'no operation depends on a custom header without a body or query alternative');
}

/** Every success answer sized at its largest ({@link sizeOf}); a WARN names each that cannot be or is too big. */
function responseSize(document: OpenApiJson, operations: DocumentOperation[]): CheckResult {
  const sized = operations.flatMap((op) =>
    Object.entries<any>(op.operation.responses ?? {})
      .filter(([status]) => /^2/.test(status))
      .flatMap(([status, response]) => sizeOf(document, op, status, response)),
  );
  const problems = [...new Set(sized.flatMap((answer) => (answer.problem ? [answer.problem] : [])))];
  const largest = sized.reduce((best, answer) => (answer.length > best.length ? answer : best), { where: '', length: 0 });
  return allOf(
    'actions.response-size',
    problems,
    `every answer at its largest (a full page, every string at its maximum) stays under ${MAX_PAYLOAD_CHARS} characters; the largest: ${largest.where} at ${largest.length}`,
    'WARN',
  );
}

/** One success answer at its largest: its size, and what is wrong with it if anything. */
interface SizedAnswer {
  where: string;
  length: number;
  problem?: string;
}

/**
 * Sizes one success answer (see `maximalSize`): a list at the page its `limit` allows with every item at its
 * largest, a single answer with every field at its maximum. A list answer that cannot be sized (a field without
 * a bound), or any answer over the limit, is a problem. A single answer with an unbounded field (a URL, an id)
 * is not sized: its size does not grow with the person's data.
 */
function sizeOf(document: OpenApiJson, op: DocumentOperation, status: string, response: unknown): SizedAnswer[] {
  const schema = resolve(document, resolve(document, response)?.content?.['application/json']?.schema);
  if (!schema) return [];
  const where = `${label(op)} ${status}`;
  const sized = maximalSize(document, schema, limitMaximum(document, op));
  if ('unbounded' in sized) {
    if (arraysIn(document, schema).length === 0) return [];
    return [
      { where, length: 0, problem: `${where} cannot be sized: ${sized.unbounded} has no bound (maxLength, maxItems or a limit parameter)` },
    ];
  }
  const over = sized.length > MAX_PAYLOAD_CHARS;
  return [
    {
      where,
      length: sized.length,
      ...(over ? { problem: `${where} is ${sized.length} characters at its largest (max ${MAX_PAYLOAD_CHARS})` } : {}),
    },
  ];
}

/** The operation's parameters, path-level ones included, with `$ref`s resolved. */
function parametersOf(document: OpenApiJson, op: DocumentOperation): Array<Record<string, any>> {
  const shared = document.paths?.[op.path]?.parameters ?? [];
  return [...shared, ...(op.operation.parameters ?? [])]
    .map((p: unknown) => resolve(document, p))
    .filter((p): p is Record<string, any> => p !== undefined);
}

/** `Idempotency-Key` → `idempotency_key`: the body field a header-less client sends instead. */
export function bodyFieldName(header: string): string {
  return header.toLowerCase().replace(/-/g, '_');
}

function bodyFieldFor(document: OpenApiJson, op: DocumentOperation, header: string): boolean {
  const schema = resolve(document, resolve(document, op.operation.requestBody)?.content?.['application/json']?.schema);
  const field = bodyFieldName(header);
  const candidates = [schema, ...((schema?.oneOf ?? schema?.anyOf ?? schema?.allOf ?? []) as unknown[]).map((s) => resolve(document, s))];
  return candidates.some((candidate) => candidate?.properties && field in candidate.properties);
}

/** A query parameter of the header's snake-case name: what an operation whose body is all its own offers instead. */
function queryParameterFor(document: OpenApiJson, op: DocumentOperation, header: string): boolean {
  const field = bodyFieldName(header);
  return parametersOf(document, op).some((parameter) => parameter.in === 'query' && parameter.name === field);
}

/** The largest page a list operation answers: its `limit` query parameter's maximum, if it has one. */
function limitMaximum(document: OpenApiJson, op: DocumentOperation): number | undefined {
  const limit = parametersOf(document, op).find((p) => p.in === 'query' && p.name === 'limit');
  const maximum = resolve(document, limit?.schema)?.maximum;
  return typeof maximum === 'number' ? maximum : undefined;
}

/** The arrays a response body holds at its top level or one property down (a page's `items`). */
function arraysIn(document: OpenApiJson, schema: Record<string, any>): Array<Record<string, any>> {
  const isArray = (s: Record<string, any> | undefined) => s && (s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array')));
  if (isArray(schema)) return [schema];
  return Object.values<unknown>(schema.properties ?? {})
    .map((property) => resolve(document, property))
    .filter((property): property is Record<string, any> => Boolean(isArray(property)));
}

/** Follows a local `$ref` (`#/components/...`); anything else is returned as is. */
function resolve(document: OpenApiJson, value: unknown, depth = 0): Record<string, any> | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref !== 'string' || depth > 10) return value as Record<string, any>;
  if (!ref.startsWith('#/')) return undefined;
  let node: any = document;
  for (const part of ref.slice(2).split('/')) node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  return resolve(document, node, depth + 1);
}
