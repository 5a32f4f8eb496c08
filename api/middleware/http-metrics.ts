import type { Metrics } from '../../shared/platform/metrics/metrics';
import { state } from '../http/locals';
import type { OutcomeRecorder } from './request-outcome';

/** Counts and times every answered request by method, route template and status (run by `requestOutcome`). */
export function httpMetrics(metrics: Metrics): OutcomeRecorder {
  return (req, res, durationNs) => {
    const { route } = state(res);
    // Unknown methods would grow the label set without bound; they all count as OTHER.
    const method = KNOWN_METHODS.has(req.method) ? req.method : 'OTHER';
    metrics.httpRequests.inc({ method, route, status: String(res.statusCode) });
    metrics.httpDuration.observe({ method, route }, durationNs / 1e9);
  };
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
