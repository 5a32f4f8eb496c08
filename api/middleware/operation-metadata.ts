import type { RequestHandler } from 'express';
import type { OpenApiContext } from 'express-openapi-validator/dist/framework/openapi.context';
import type { OpenAPIV3, OpenApiRequest, OpenApiRequestMetadata } from 'express-openapi-validator/dist/framework/types';
import type { Operation } from '../../shared/contract/operations/operation';
import { state } from '../http/locals';

/** A document path's entry in the validator's route map: its two route forms and each method's operation object. */
interface RouteMethods {
  _expressRoute: string;
  _openApiRoute: string;
  [method: string]: OpenAPIV3.OperationObject | string;
}

/** The route metadata of an operation, all but its path parameters. */
type RouteOf = Omit<OpenApiRequestMetadata, 'pathParams'>;

/**
 * The validator's route metadata (`req.openapi`) for the operation the registry matched, in place of the library's
 * own lookup (`applyOpenApiMetadata`), which matched the URL again on every request: it walked the document's
 * paths and ran each template's pattern until one matched, 3 µs of a paid job's CPU (why:
 * docs/decisions/validator-metadata-from-the-match.md). The request is validated against the document's entry
 * for the very operation dispatched, with the path parameters the registry's match decoded. An operation the
 * document leaves out is not validated, as the library's `ignoreUndocumented` would leave it.
 */
export function operationMetadata(context: OpenApiContext): RequestHandler {
  const routeMap = context.openApiRouteMap as Record<string, RouteMethods | undefined>;
  // Filled once per operation, on its first request; never emptied: one entry per registry operation.
  const routes = new Map<Operation, RouteOf | null>();
  const routeOf = (operation: Operation): RouteOf | null => {
    let route = routes.get(operation);
    if (route === undefined) {
      const methods = routeMap[operation.path];
      const schema = methods?.[operation.method.toUpperCase()];
      route =
        methods && typeof schema === 'object'
          ? { expressRoute: methods._expressRoute, openApiRoute: methods._openApiRoute, schema, serial: context.serial }
          : null;
      routes.set(operation, route);
    }
    return route;
  };
  return (req, res, next) => {
    const { operation, params = {} } = state(res);
    const route = operation ? routeOf(operation) : null;
    if (route) {
      (req as OpenApiRequest).openapi = { ...route, pathParams: params };
      req.params = params;
    }
    next();
  };
}
