import * as OpenApiValidator from 'express-openapi-validator';
import type { RequestHandler } from 'express';
import type { OpenApiDocument } from '../../shared/description/openapi-document';

/**
 * Enforces the generated OpenAPI document on every matched request: parameters, headers and bodies,
 * unknown fields and unknown query parameters included. Only requests for registry operations reach it.
 */
export function requestValidator(document: OpenApiDocument): RequestHandler[] {
  return OpenApiValidator.middleware({
    // The validator mutates and dereferences its spec; give it a copy of its own.
    apiSpec: structuredClone(document) as never,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: false,
    validateSecurity: false,
    validateApiSpec: true,
    ignoreUndocumented: true,
    // Only JSON bodies are accepted (415 otherwise): no multipart stage on every request.
    fileUploader: false,
  }) as unknown as RequestHandler[];
}
