import { Router } from 'express';
import { state } from '../http/locals';

/**
 * Serves `/openapi.json` and `/llms.txt`. Both are generated once at start from the registry and the
 * configuration, so they are identical for every caller and cost nothing per request.
 */
export function descriptionRoutes(openApiJson: string, llmsTxt: string): Router {
  // Exact paths, as the registry matches them: no trailing-slash or upper-case aliases.
  const router = Router({ strict: true, caseSensitive: true });
  router.get('/openapi.json', (_req, res) => {
    state(res).route = '/openapi.json';
    res.type('application/json').set('Cache-Control', 'public, max-age=300').send(openApiJson);
  });
  router.get('/llms.txt', (_req, res) => {
    state(res).route = '/llms.txt';
    res.type('text/plain; charset=utf-8').set('Cache-Control', 'public, max-age=300').send(llmsTxt);
  });
  return router;
}
