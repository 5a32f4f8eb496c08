import http from 'node:http';
import type { Express } from 'express';
import type { HttpLimits } from '../../shared/platform/config/config';
import { HttpDrain } from '../../shared/platform/lifecycle/http-drain';
import { answerClientErrors } from './client-error';

const CHECK_INTERVAL_MS = 1000;

/** The API's HTTP listener and the drain that stops it without resetting anyone. */
export interface ApiServer {
  server: http.Server;
  drain: HttpDrain;
  /**
   * Serves `app` (through `listener`, which calls it: a tracing wrapper, or the app itself). Call it once,
   * before the first request: from then on requests and responses are made with the app's prototypes (where
   * {@link ApiServerOptions.bornWithAppPrototypes} holds).
   */
  serve(app: Express, listener?: http.RequestListener): void;
}

/**
 * A constructor for Node's HTTP server that makes what `base` makes, with `prototype` set later by `serve`.
 * Node calls it with `new`, as the `IncomingMessage` and `ServerResponse` options allow.
 */
function bornWithAppPrototype<C extends new (...args: never[]) => object>(base: C): C {
  // Constructed as `base` with `Born` as new.target: V8 then lays the object out as `base` does (its
  // in-object fields), which a function calling `base` on `this` would not.
  function Born(...args: unknown[]): object {
    return Reflect.construct(base, args, Born);
  }
  Born.prototype = base.prototype;
  return Born as unknown as C;
}

/**
 * Whether the API's requests and responses are made with the app's prototypes by default: on Node 26 (the
 * image's) it saves Express's two slow `Object.setPrototypeOf` calls a request; on Node 20 the same objects made
 * `GET /v1/me` 47 % dearer, so older Nodes keep Express's own call (docs/decisions/born-with-app-prototypes.md).
 */
const BORN_WITH_APP_PROTOTYPES = Number(process.versions.node.split('.')[0]) >= 26;

/** How the API's HTTP server is made, beyond its limits. */
export interface ApiServerOptions {
  /** Requests and responses made with the served app's prototypes (default {@link BORN_WITH_APP_PROTOTYPES}). */
  bornWithAppPrototypes?: boolean;
}

/**
 * Creates the API's HTTP server with its limits: slow or oversized requests are cut by Node before the app
 * sees them (408 past the timeouts, 431 past the header bytes, the URL included), and idle keep-alive
 * connections outlive the ingress's, so it is the ingress that closes them (no race on reuse). The app is
 * attached afterwards with `serve(app)`; the drain's own listener runs before it.
 */
export function createApiServer(
  limits: HttpLimits,
  { bornWithAppPrototypes = BORN_WITH_APP_PROTOTYPES }: ApiServerOptions = {},
): ApiServer {
  // Express gives every request and response its app's prototypes (Object.setPrototypeOf in app.handle),
  // which V8 does on its slow path: 1.5 to 3 µs each, measured in the built API and the floor server alike.
  // Made with those prototypes from the start, the objects pass through that call unchanged
  // (docs/decisions/born-with-app-prototypes.md).
  const born = bornWithAppPrototypes
    ? { IncomingMessage: bornWithAppPrototype(http.IncomingMessage), ServerResponse: bornWithAppPrototype(http.ServerResponse) }
    : undefined;
  const server = http.createServer({
    ...born,
    maxHeaderSize: limits.maxHeaderBytes,
    requestTimeout: limits.requestTimeoutMs,
    headersTimeout: limits.headersTimeoutMs,
    // Node checks both timeouts on this tick (30 s by default), so a timeout would otherwise be up to 30 s late.
    connectionsCheckingInterval: CHECK_INTERVAL_MS,
    // Node would answer a missing Host with a bare 400; the app's requireHost answers it as problem+json.
    requireHostHeader: false,
  });
  answerClientErrors(server);
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  const drain = new HttpDrain(server);
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => drain.track(req, res));
  const serve = (app: Express, listener: http.RequestListener = app): void => {
    if (born) {
      born.IncomingMessage.prototype = app.request;
      born.ServerResponse.prototype = app.response;
    }
    server.on('request', listener);
  };
  return { server, drain, serve };
}
