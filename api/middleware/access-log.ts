import type { Logger } from 'pino';
import { state } from '../http/locals';
import type { OutcomeRecorder } from './request-outcome';

const PROBE_ROUTES = new Set(['/healthz', '/readyz']);

/**
 * One JSON line per answered request (run by `requestOutcome`). It names only the method, the route template,
 * the status, the duration and the request id: no headers, no query and no body, so no credential can slip in.
 */
export function accessLog(logger: Logger): OutcomeRecorder {
  // The line is built from the five fields above and nothing else, so the root logger's redaction has
  // nothing to find in it; skipping it matters because pino's redaction re-parses every configured path on
  // every line (about a fifth of all the bytes a `GET /v1/me` allocated, and the GC work that follows).
  const log = logger.child({}, { redact: [] });
  return (req, res, durationNs) => {
    // Nothing to do at levels that drop every access line (warn still keeps a 5xx's line).
    if (!log.isLevelEnabled('warn')) return;
    const { requestId, route } = state(res);
    const line = {
      req_id: requestId,
      method: req.method,
      route,
      status: res.statusCode,
      duration_ms: Math.round(durationNs / 1e4) / 100,
    };
    // Probes hit these every few seconds; at info or warn they would drown the log (a not-ready 503 is
    // expected while Redis is away, and connector_redis_up already says so).
    if (PROBE_ROUTES.has(route)) log.debug(line, 'request');
    else if (res.statusCode >= 500) log.warn(line, 'request');
    else log.info(line, 'request');
  };
}
