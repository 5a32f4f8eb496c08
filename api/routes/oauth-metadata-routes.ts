import { Router } from 'express';
import { authorizationServerMetadata, protectedResourceMetadata, wellKnownPaths } from '../../shared/domain/oauth/discovery';
import { oauthEndpoint } from '../http/oauth-endpoint';

/**
 * The discovery documents: RFC 9728 protected-resource metadata and RFC 8414 authorization-server metadata,
 * at every placement {@link wellKnownPaths} lists. They depend on `PUBLIC_URL` only, so they are built once.
 */
export function oauthMetadataRoutes(publicUrl: string): Router {
  const router = Router();
  const { resource, authorizationServer } = wellKnownPaths(publicUrl);
  for (const [paths, route, body] of [
    [resource, '/.well-known/oauth-protected-resource', protectedResourceMetadata(publicUrl)],
    [authorizationServer, '/.well-known/oauth-authorization-server', authorizationServerMetadata(publicUrl)],
  ] as const) {
    router.options(paths, oauthEndpoint(route));
    router.get(paths, oauthEndpoint(route), (_req, res) => void res.set('Cache-Control', 'public, max-age=3600').json(body));
  }
  return router;
}
