import { OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import { OAuthProtocolError } from './oauth-protocol-error';

/**
 * Size limits on what is kept of a client's metadata. Every registration is stored for as long as it may be
 * used, so these bound what one registration costs (under 3 KB); real apps send one to three short
 * redirect URIs and a short name.
 */
export const CLIENT_METADATA_LIMITS = { nameLength: 100, redirectUris: 5, redirectUriLength: 512 } as const;

/** What the connector keeps of a client's metadata. */
export interface ClientMetadata {
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method?: string;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
// What RFC 3986 allows in a URI: anything else (spaces, quotes, backslashes, raw non-ASCII) must be
// percent-encoded. Besides refusing IRIs, this keeps a stored URI one byte per character, JSON-escaped or not.
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]+$/;

// C0 and C1 controls, and the bidirectional controls (embeddings, overrides, isolates and marks) that make
// a name read differently from what it holds, e.g. U+202E turning "ppA" into "App".
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point: they are stripped from names people read
const UNSHOWABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * A client name as it may be shown on a consent screen: without control or bidirectional-control
 * characters, trimmed; "Unnamed app" when nothing is left.
 */
export function showableClientName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.replace(UNSHOWABLE, '').trim() : '';
  return name || 'Unnamed app';
}

/**
 * Parses client metadata (a registration body or a metadata document) with the MCP SDK's schema, then the
 * connector's own limits and redirect-URI rules. `code` is the error a refusal carries: RFC 7591's
 * `invalid_client_metadata` at registration, `invalid_client` for a metadata document.
 */
export function parseClientMetadata(
  body: unknown,
  code: 'invalid_client_metadata' | 'invalid_client' = 'invalid_client_metadata',
): ClientMetadata {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) throw new OAuthProtocolError(code, 'the client metadata is not valid');
  const { redirect_uris: uris, token_endpoint_auth_method, client_name } = parsed.data;
  const { nameLength, redirectUris, redirectUriLength } = CLIENT_METADATA_LIMITS;
  if (typeof client_name === 'string' && client_name.length > nameLength) {
    throw new OAuthProtocolError(code, `client_name must be at most ${nameLength} characters`);
  }
  if (uris.length === 0 || uris.length > redirectUris || uris.some((uri) => uri.length > redirectUriLength)) {
    throw new OAuthProtocolError(code, `redirect_uris must hold 1 to ${redirectUris} URIs of at most ${redirectUriLength} characters`);
  }
  if (!uris.every(isAllowedRedirectUri)) {
    throw new OAuthProtocolError(
      code === 'invalid_client' ? code : 'invalid_redirect_uri',
      'redirect_uris must be https, loopback http or a private-use scheme',
    );
  }
  return { redirect_uris: uris, token_endpoint_auth_method, client_name: showableClientName(client_name) };
}

/** https anywhere; http only on a loopback host (native apps, RFC 8252); or a reverse-domain private scheme. */
export function isAllowedRedirectUri(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (!URI_CHARACTERS.test(raw) || url.hash || url.username || url.password || raw.length > 2000) return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname);
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol);
}
