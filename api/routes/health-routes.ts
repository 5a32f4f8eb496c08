import { Router } from 'express';
import { ServiceUnavailableError } from '../../shared/platform/errors/problems';
import { state } from '../http/locals';

/** `/healthz` (the process runs) and `/readyz` (its backend answers), for probes. */
export function healthRoutes(ready: () => Promise<boolean>): Router {
  // Exact paths, as the registry matches them: no trailing-slash or upper-case aliases.
  const router = Router({ strict: true, caseSensitive: true });
  router.get('/healthz', (_req, res) => {
    state(res).route = '/healthz';
    res.set('Cache-Control', 'no-store').json({ status: 'ok' });
  });
  router.get('/readyz', async (_req, res, next) => {
    state(res).route = '/readyz';
    const ok = await ready().catch(() => false);
    if (!ok) return next(new ServiceUnavailableError());
    res.set('Cache-Control', 'no-store').json({ status: 'ready' });
  });
  return router;
}
