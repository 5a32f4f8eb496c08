import { type Request, Router } from 'express';
import { MethodNotAllowedError } from '../../shared/platform/errors/problems';
import { state } from '../http/locals';
import { renderRootPage } from './root-page';

/** The methods `/` answers; every other one is a 405 naming these. */
const ALLOWED = ['GET', 'HEAD'];

/**
 * HTML only for a client that prefers it to JSON, as every browser says in its `Accept`. A client that
 * sends no `Accept`, or only the any-type wildcard (curl, fetch, scripts), is a program and gets JSON; so
 * does one that accepts neither form, rather than a 406 for a page that only points elsewhere.
 */
function wantsHtml(req: Request): boolean {
  if (req.headers.accept === undefined) return false;
  return req.accepts(['application/json', 'text/html']) === 'text/html';
}

/**
 * `GET /` (and HEAD): a short page naming the service and its addresses, HTML or JSON by content
 * negotiation. It is no operation, so neither `/openapi.json`, `/llms.txt` nor the MCP tool list names it.
 */
export function rootPageRoutes(publicUrl: string): Router {
  const page = renderRootPage(publicUrl);
  // Exact path, as the other fixed routes: `//` or `/index.html` stay 404.
  const router = Router({ strict: true, caseSensitive: true });
  router.all('/', (req, res, next) => {
    state(res).route = '/';
    if (!ALLOWED.includes(req.method)) return next(new MethodNotAllowedError(ALLOWED));
    const html = wantsHtml(req);
    res.vary('Accept').set('Cache-Control', 'public, max-age=300');
    // A page a browser renders: it keeps the address it was read at to itself when a link on it is followed.
    if (html) res.set('Referrer-Policy', 'no-referrer');
    res.type(html ? 'text/html; charset=utf-8' : 'application/json').send(html ? page.html : page.json);
  });
  return router;
}
