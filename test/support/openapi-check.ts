import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { expect } from 'chai';
import { buildOpenApiDocument, type OpenApiDocument } from '../../shared/contract/description/openapi-document';
import { OPERATIONS } from '../../shared/contract/operations/registry';

/** A response as the test client saw it on the wire. */
export interface WireResponse {
  method: string;
  path: string;
  status: number;
  headers: Headers;
  text: string;
}

// The dashboard's operations are routed and validated by the server but not published; their responses
// are checked against the internal copy generated from the same registry.
const INTERNAL_DOCUMENT = buildOpenApiDocument(OPERATIONS, '/');
/** Paths outside the operations registry; their answers are checked by the tests that call them. */
const NON_OPERATION_PATHS = new Set(['/', '/openapi.json', '/llms.txt', '/healthz', '/readyz']);

function compilePath(template: string): RegExp {
  return new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
}

/**
 * Checks every response of the HTTP suites against the published OpenAPI document: the status must be
 * declared for the operation, the media type must match, required headers must be present and the body
 * must validate against the declared schema. Errors outside any operation must be problem+json.
 */
export class OpenApiResponseChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly published: OpenApiDocument;

  constructor(published: OpenApiDocument) {
    addFormats(this.ajv);
    this.published = published;
    this.ajv.addSchema(published, 'published');
    this.ajv.addSchema(INTERNAL_DOCUMENT, 'internal');
  }

  check(response: WireResponse): void {
    const path = response.path.split('?')[0];
    const where = `${response.method} ${path} → ${response.status}`;
    if (NON_OPERATION_PATHS.has(path)) return;
    const found = this.findOperation(response.method.toLowerCase(), path);
    if (!found) {
      expect(response.status, `${where}: only errors may answer outside the documented operations`).to.be.oneOf([
        404, 405, 401, 413, 415, 429,
      ]);
      this.checkBody('published', '#/components/schemas/Problem', response, 'application/problem+json', where);
      return;
    }
    const { docName, document, pointer } = found;
    const operation = resolve(document, pointer);
    let declared = operation.responses?.[String(response.status)];
    expect(declared, `${where}: status is not declared in the OpenAPI document`).to.not.equal(undefined);
    let responsePointer = `${pointer}/responses/${response.status}`;
    if (declared.$ref) {
      responsePointer = declared.$ref;
      declared = resolve(document, declared.$ref);
    }
    for (const [name, header] of Object.entries<any>(declared.headers ?? {})) {
      if (header.required) expect(response.headers.get(name), `${where}: required header ${name}`).to.be.a('string');
    }
    const [mediaType] = Object.keys(declared.content ?? {});
    if (!mediaType) return;
    this.checkBody(docName, `${responsePointer}/content/${escapePointer(mediaType)}/schema`, response, mediaType, where);
  }

  private checkBody(docName: string, pointer: string, response: WireResponse, mediaType: string, where: string): void {
    expect(response.headers.get('content-type') ?? '', `${where}: media type`).to.match(
      new RegExp(`^${mediaType.replace(/[+/]/g, '\\$&')}(;|$)`),
    );
    const validate = this.ajv.getSchema(`${docName}${pointer}`);
    if (!validate) throw new Error(`${where}: no schema at ${pointer}`);
    // Newline-delimited JSON declares the schema of one line: every line must match it.
    const bodies = mediaType === 'application/x-ndjson' ? ndjsonLines(response.text) : [JSON.parse(response.text)];
    for (const body of bodies) {
      const ok = validate(body);
      expect(
        ok,
        `${where}: body does not match the schema: ${JSON.stringify(validate.errors)} body=${response.text.slice(0, 500)}`,
      ).to.equal(true);
    }
  }

  private findOperation(method: string, path: string): { docName: string; document: OpenApiDocument; pointer: string } | undefined {
    for (const [docName, document] of [
      ['published', this.published],
      ['internal', INTERNAL_DOCUMENT],
    ] as const) {
      for (const template of Object.keys(document.paths)) {
        if (compilePath(template).test(path) && document.paths[template][method]) {
          return { docName, document, pointer: `#/paths/${escapePointer(template)}/${method}` };
        }
      }
    }
    return undefined;
  }
}

/** The values of a newline-delimited JSON body, one per non-empty line. */
function ndjsonLines(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function resolve(document: OpenApiDocument, pointer: string): any {
  return pointer
    .replace(/^#\//, '')
    .split('/')
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((node: any, key) => node?.[key], document);
}
