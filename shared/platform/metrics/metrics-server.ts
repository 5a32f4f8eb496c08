import http from 'node:http';
import type { Metrics } from './metrics';

/** One answer of the metrics port: status, content type, body. */
type Answer = readonly [status: number, type: string, body: string];

const NOT_FOUND: Answer = [404, 'text/plain', 'not found\n'];

/**
 * The small HTTP server on the metrics port: `/metrics` always, and `/healthz`, `/readyz` when a readiness
 * check is given (the worker has no other port). Never exposed through the ingress.
 */
export function createMetricsServer(metrics: Metrics, ready?: () => Promise<boolean>): http.Server {
  // A Map, not an object: a path such as `/constructor` must not find a property of Object's prototype.
  const routes = new Map<string, () => Promise<Answer>>([['/metrics', () => scrape(metrics)], ...(ready ? probes(ready) : [])]);
  return http.createServer(async (req, res) => {
    if (req.method !== 'GET') return send(res, [405, 'text/plain', 'method not allowed\n'], { Allow: 'GET' });
    const route = routes.get((req.url ?? '/').split('?')[0]);
    send(res, route ? await route() : NOT_FOUND);
  });
}

/** `/metrics`: the registry's text, or 500 when collecting it fails. */
async function scrape(metrics: Metrics): Promise<Answer> {
  try {
    return [200, metrics.registry.contentType, await metrics.registry.metrics()];
  } catch {
    return [500, 'text/plain', 'metrics unavailable\n'];
  }
}

/** `/healthz` (the process answers) and `/readyz` (the readiness check passes; a check that throws is not ready). */
function probes(ready: () => Promise<boolean>): Array<[string, () => Promise<Answer>]> {
  const readiness = async (): Promise<Answer> =>
    (await ready().catch(() => false))
      ? [200, 'application/json', '{"status":"ready"}']
      : [503, 'application/json', '{"status":"unavailable"}'];
  return [
    ['/healthz', async () => [200, 'application/json', '{"status":"ok"}']],
    ['/readyz', readiness],
  ];
}

function send(res: http.ServerResponse, [status, type, body]: Answer, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers }).end(body);
}
