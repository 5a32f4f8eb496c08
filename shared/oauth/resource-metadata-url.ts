/**
 * Where the RFC 9728 protected-resource metadata of the connector is, as the `WWW-Authenticate` challenge
 * of a 401 names it: `<PUBLIC_URL>/.well-known/oauth-protected-resource`. The connector also answers at
 * the RFC 9728 placement (well-known segment before the path) and under `/mcp`; see `discovery.ts`.
 */
export function resourceMetadataUrl(publicUrl: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/.well-known/oauth-protected-resource`;
}
