import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { OpenApiContext } from 'express-openapi-validator/dist/framework/openapi.context';
import { OpenApiSpecLoader } from 'express-openapi-validator/dist/framework/openapi.spec.loader';
import { RequestValidator } from 'express-openapi-validator/dist/middlewares';
import { SchemaPreprocessor } from 'express-openapi-validator/dist/middlewares/parsers/schema.preprocessor';
import { OpenApiValidator } from 'express-openapi-validator/dist/openapi.validator';
import type { OpenApiDocument } from '../../shared/contract/description/openapi-document';
import { state } from '../http/locals';
import { chain } from '../http/middleware-chain';
import { operationMetadata } from './operation-metadata';
import { settleUrlParseCheck } from './url-parse-check';

/**
 * Enforces the generated OpenAPI document on every matched request: parameters, headers and bodies,
 * unknown fields and unknown query parameters included. Only requests for registry operations reach it.
 */
export function requestValidator(document: OpenApiDocument): RequestHandler {
  settleUrlParseCheck();
  const ready = validatorSteps(document);
  let steps: RequestHandler | undefined;
  ready.then(
    (built) => {
      steps = built;
    },
    () => undefined,
  );
  // Until the document is loaded (the first requests after start), a request waits for it; a document the
  // validator refuses fails every request, as the library's own middleware does.
  const validate: RequestHandler = (req, res, next) => {
    if (steps) {
      steps(req, res, next);
      return;
    }
    ready.then((built) => built(req, res, next)).catch(next);
  };
  return skipWhenNothingToValidate(validate);
}

/**
 * The library's request validation, built once the document is loaded and then called directly, after the route
 * metadata of the operation the registry matched ({@link operationMetadata}, in place of the library's own
 * lookup). Its own `middleware()` wraps each of its four steps (path parameters and security, which these
 * options leave idle, included) in a `then` on the loading promise, every request: four promise hops and their
 * closures, for nothing after the first request (the cost: docs/decisions/validator-steps-called-directly.md).
 * The validation is built exactly as `middleware()` builds it: the same options object, loader, preprocessing
 * (which prepares the document's schemas in place) and context.
 */
async function validatorSteps(document: OpenApiDocument): Promise<RequestHandler> {
  const validator = new OpenApiValidator({
    // The validator mutates and dereferences its spec; give it a copy of its own.
    apiSpec: structuredClone(document) as never,
    validateRequests: { allowUnknownQueryParameters: false, coerceTypes: false },
    validateResponses: false,
    validateSecurity: false,
    validateApiSpec: true,
    ignoreUndocumented: true,
    // Only JSON bodies are accepted (415 otherwise): no multipart stage on every request.
    fileUploader: false,
  });
  const { options, ajvOpts } = validator;
  const spec = await new OpenApiSpecLoader({
    apiDoc: options.apiSpec as never,
    validateApiSpec: options.validateApiSpec,
    $refParser: options.$refParser,
  }).load();
  new SchemaPreprocessor(spec.apiDoc, ajvOpts.preprocessor, options.validateResponses as never).preProcess();
  const context = new OpenApiContext(spec, options.ignorePaths as never, options.ignoreUndocumented, options.useRequestUrl);
  const requests = new RequestValidator(context.apiDoc, ajvOpts.request);
  return chain(operationMetadata(context), (req, res, next) => requests.validate(req as never, res, next));
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
