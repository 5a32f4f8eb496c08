import type { Target } from './target';

/** An OpenAPI document as JSON. */
export type OpenApiJson = Record<string, any>;

/** One operation of a document, with where it sits. */
export interface DocumentOperation {
  method: string;
  path: string;
  operation: Record<string, any>;
}

/** What the rule groups share while the doctor runs; earlier groups fill in what later ones need. */
export interface DoctorContext {
  readonly target: Target;
  /** The dashboard's secret, when the operator gave it: enables the rules that need a token. */
  readonly linkSecret?: string;
  /** The published `/openapi.json`, once fetched and parsed. */
  document?: OpenApiJson;
  /** A token minted for a throwaway subject (only with the link secret). */
  token?: string;
  connectionId?: string;
  subject?: string;
  /** The `resource_metadata` URL the MCP endpoint's 401 pointed at. */
  resourceMetadataUrl?: string;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** Every operation of a document, in document order. */
export function documentOperations(document: OpenApiJson): DocumentOperation[] {
  const operations: DocumentOperation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths ?? {})) {
    for (const method of METHODS) {
      if (item?.[method] && typeof item[method] === 'object') operations.push({ method, path, operation: item[method] });
    }
  }
  return operations;
}

/** `GET /v1/me`-style label of an operation, for messages. */
export function label({ method, path }: DocumentOperation): string {
  return `${method.toUpperCase()} ${path}`;
}
