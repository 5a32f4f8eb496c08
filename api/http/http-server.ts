import http from 'node:http';
import type { HttpLimits } from '../../shared/platform/config/config';
import { HttpDrain } from '../../shared/platform/lifecycle/http-drain';
import { answerClientErrors } from './client-error';

const CHECK_INTERVAL_MS = 1000;

/** The API's HTTP listener and the drain that stops it without resetting anyone. */
export interface ApiServer {
  server: http.Server;
  drain: HttpDrain;
}

/**
 * Creates the API's HTTP server with its limits: slow or oversized requests are cut by Node before the app
 * sees them (408 past the timeouts, 431 past the header bytes, the URL included), and idle keep-alive
 * connections outlive the ingress's, so it is the ingress that closes them (no race on reuse). The app is
 * attached afterwards with `server.on('request', app)`; the drain's own listener runs before it.
 */
export function createApiServer(limits: HttpLimits): ApiServer {
  const server = http.createServer({
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
  return { server, drain };
}
