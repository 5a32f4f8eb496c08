import http from 'node:http';
import type { Metrics } from './metrics';

/**
 * The small HTTP server on the metrics port: `/metrics` always, and `/healthz`, `/readyz` when a readiness
 * check is given (the worker has no other port). Never exposed through the ingress.
 */
export function createMetricsServer(metrics: Metrics, ready?: () => Promise<boolean>): http.Server {
  return http.createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET') return send(res, 405, 'text/plain', 'method not allowed\n', { Allow: 'GET' });
    if (path === '/metrics') {
      try {
        return send(res, 200, metrics.registry.contentType, await metrics.registry.metrics());
      } catch {
        return send(res, 500, 'text/plain', 'metrics unavailable\n');
      }
    }
    if (ready && path === '/healthz') return send(res, 200, 'application/json', '{"status":"ok"}');
    if (ready && path === '/readyz') {
      const ok = await ready().catch(() => false);
      return send(res, ok ? 200 : 503, 'application/json', ok ? '{"status":"ready"}' : '{"status":"unavailable"}');
    }
    send(res, 404, 'text/plain', 'not found\n');
  });
}

function send(res: http.ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-store', ...headers }).end(body);
}
