import type { NextFunction, Request, Response } from 'express';
import type { Metrics } from '../../shared/platform/metrics/metrics';
import { state } from '../http/locals';

/** Counts and times every answered request by method, route template and status. */
export function httpMetrics(metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const stop = process.hrtime.bigint();
    res.once('finish', () => {
      const { route } = state(res);
      // Unknown methods would grow the label set without bound; they all count as OTHER.
      const method = KNOWN_METHODS.has(req.method) ? req.method : 'OTHER';
      metrics.httpRequests.inc({ method, route, status: String(res.statusCode) });
      metrics.httpDuration.observe({ method, route }, Number(process.hrtime.bigint() - stop) / 1e9);
    });
    next();
  };
}

const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
