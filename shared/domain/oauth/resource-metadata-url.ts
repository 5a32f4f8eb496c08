/**
 * The RFC 9728 protected-resource metadata URL of the resource `publicUrl`. The well-known segment goes
 * between the host and the resource's path (RFC 9728 §3.1), so `https://host/base` gives
 * `https://host/.well-known/oauth-protected-resource/base`, and a bare origin gives no trailing path.
 */
export function resourceMetadataUrl(publicUrl: string): string {
  const url = new URL(publicUrl);
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}/.well-known/oauth-protected-resource${path}`;
}
