import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * The path part of `PUBLIC_URL` (`/connector` for `https://host/connector`), or `''` when it has none.
 * The configuration has already normalised it: no trailing slash, no query.
 */
export function publicPathOf(publicUrl: string): string {
  const path = new URL(publicUrl).pathname.replace(/\/+$/, '');
  return path === '/' ? '' : path;
}

/**
 * Serves every route under the `PUBLIC_URL` path as well as at the root: a request for `<path>/x` is
 * routed as `/x` (only on a whole segment, so `<path>x/…` is not), before anything else in the app sees it.
 * So the API works both behind an ingress that strips the prefix and behind one that keeps it, and every
 * route, present or future, gets this without knowing of it. `req.originalUrl` is rewritten too: libraries
 * that route on it (the OpenAPI request validator does) must see the same path as the router, or a prefixed
 * request would slip past them unvalidated. Returns undefined when `PUBLIC_URL` has no path.
 */
export function stripPublicPath(publicUrl: string): RequestHandler | undefined {
  const prefix = publicPathOf(publicUrl);
  if (!prefix) return undefined;
  return (req: Request, _res: Response, next: NextFunction): void => {
    const url = req.url;
    if (url.startsWith(prefix)) {
      const rest = url.slice(prefix.length);
      const stripped = rest === '' || rest.startsWith('?') ? `/${rest}` : rest.startsWith('/') ? rest : undefined;
      if (stripped !== undefined) req.url = req.originalUrl = stripped;
    }
    next();
  };
}
