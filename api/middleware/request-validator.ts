import type { NextFunction, Request, RequestHandler, Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenApiDocument } from '../../shared/contract/description/openapi-document';
import { state } from '../http/locals';
import { chain } from '../http/middleware-chain';
import { rememberValidatorRoutePatterns } from './validator-route-patterns';

/**
 * Enforces the generated OpenAPI document on every matched request: parameters, headers and bodies,
 * unknown fields and unknown query parameters included. Only requests for registry operations reach it.
 */
export function requestValidator(document: OpenApiDocument): RequestHandler {
  rememberValidatorRoutePatterns();
  const validator = OpenApiValidator.middleware({
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
  return skipWhenNothingToValidate(chain(...validator));
}

/**
 * Runs the validator's middlewares only when there is something to check. Its per-request route lookup,
 * parameter mutation and schema checks are a noticeable share of a cheap request's CPU, and a request
 * whose operation declares no parameters and no body, sent without a query string or a body, passes every
 * check the document makes: the outcome is the same without them.
 */
function skipWhenNothingToValidate(validator: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction): void => {
    const operation = state(res).operation;
    const nothingToCheck =
      operation !== undefined &&
      !operation.parameters?.length &&
      !operation.requestBody &&
      !req.url.includes('?') &&
      req.body === undefined;
    if (nothingToCheck) return next();
    void validator(req, res, next);
  };
}
