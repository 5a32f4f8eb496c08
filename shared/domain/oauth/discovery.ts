import { DEV_CONSENT_PATH } from '../../platform/config/oauth-config';

/** The OAuth endpoints, relative to `PUBLIC_URL`. */
export const OAUTH_PATHS = {
  authorize: '/oauth/authorize',
  token: '/oauth/token',
  register: '/oauth/register',
  revoke: '/oauth/revoke',
  devConsent: DEV_CONSENT_PATH,
} as const;

const RESOURCE_WELL_KNOWN = '/.well-known/oauth-protected-resource';
const SERVER_WELL_KNOWN = '/.well-known/oauth-authorization-server';

/** RFC 9728 metadata: the one resource is `PUBLIC_URL`, and the connector is its authorization server. */
export function protectedResourceMetadata(publicUrl: string): Record<string, unknown> {
  return { resource: publicUrl, authorization_servers: [publicUrl], bearer_methods_supported: ['header'] };
}

/** RFC 8414 metadata of the connector as authorization server; `issuer` is `PUBLIC_URL`. */
export function authorizationServerMetadata(publicUrl: string): Record<string, unknown> {
  return {
    issuer: publicUrl,
    authorization_endpoint: `${publicUrl}${OAUTH_PATHS.authorize}`,
    token_endpoint: `${publicUrl}${OAUTH_PATHS.token}`,
    registration_endpoint: `${publicUrl}${OAUTH_PATHS.register}`,
    revocation_endpoint: `${publicUrl}${OAUTH_PATHS.revoke}`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    revocation_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
    scopes_supported: [],
  };
}

/**
 * Every path the metadata documents answer at. For a `PUBLIC_URL` with a path (`/base`), RFC 9728 and 8414
 * insert the well-known segment before it (`/.well-known/oauth-protected-resource/base`); clients that
 * append instead (`/base/.well-known/…`) reach the plain paths through the app's PUBLIC_URL path mechanism,
 * and the resource document also answers under `/mcp`, where MCP clients look first.
 */
export function wellKnownPaths(publicUrl: string): { resource: string[]; authorizationServer: string[] } {
  const base = new URL(publicUrl).pathname.replace(/\/+$/, '');
  const unique = (paths: string[]) => [...new Set(paths)];
  return {
    resource: unique([
      RESOURCE_WELL_KNOWN,
      `${RESOURCE_WELL_KNOWN}/mcp`,
      `${RESOURCE_WELL_KNOWN}${base}`,
      `${RESOURCE_WELL_KNOWN}${base}/mcp`,
    ]),
    authorizationServer: unique([SERVER_WELL_KNOWN, `${SERVER_WELL_KNOWN}${base}`]),
  };
}
