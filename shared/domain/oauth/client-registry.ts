import { OAuthClientMetadataSchema } from '@modelcontextprotocol/core';
import type { OAuthStateStore } from './oauth-state-store';
import { newId } from '../../platform/util/ids';
import { CimdFetchError, fetchClientMetadata, type CimdFetchOptions } from './cimd-fetcher';
import type { PreRegisteredClient } from '../../platform/config/oauth-config';
import { OAuthProtocolError } from './oauth-protocol-error';
import { digestsEqual, hashSecret } from './opaque-secret';

/** A client the connector knows, however it came to know it. */
export interface OAuthClient {
  clientId: string;
  clientName: string;
  redirectUris: readonly string[];
  /** Set for confidential (pre-registered) clients only. */
  secretSha256?: string;
}

/** Registrations are dropped after this long; a client that still holds a grant registers again. */
const REGISTRATION_TTL_SECONDS = 180 * 86_400;
/** How long a fetched metadata document is trusted before it is fetched again. */
const CIMD_CACHE_SECONDS = 300;
const MAX_REDIRECT_URIS = 10;
const MAX_NAME = 100;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching C0/C1 controls is the point: they are stripped from a name the consent page shows
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Finds and registers clients: pre-registered confidential ones (from `OAUTH_CLIENTS` or the store),
 * dynamically registered public ones (RFC 7591), and Client ID Metadata Documents (an https `client_id`,
 * fetched with SSRF limits and cached in the store). Client metadata is parsed with the MCP SDK's schema.
 */
export class ClientRegistry {
  private readonly preRegistered: Map<string, PreRegisteredClient>;
  private readonly maxRegistered: number;

  constructor(
    private readonly store: OAuthStateStore,
    settings: { clients: readonly PreRegisteredClient[]; maxRegisteredClients: number },
    private readonly cimd: CimdFetchOptions = {},
  ) {
    this.maxRegistered = settings.maxRegisteredClients;
    this.preRegistered = new Map(settings.clients.map((client) => [client.client_id, client]));
  }

  /** The client with this id; `invalid_client` when there is none. */
  async find(clientId: unknown): Promise<OAuthClient> {
    if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 512) throw unknownClient();
    if (clientId.startsWith('https://') || clientId.startsWith('http://')) return this.fromMetadataDocument(clientId);
    const configured = this.preRegistered.get(clientId);
    if (configured) return fromStored(configured);
    const stored = await this.store.get('client', clientId);
    if (!stored) throw unknownClient();
    return fromStored(JSON.parse(stored) as PreRegisteredClient);
  }

  /** Dynamic Client Registration (RFC 7591) of a public client; the answer is the registration. */
  async register(body: unknown): Promise<Record<string, unknown>> {
    const metadata = parseMetadata(body);
    const method = metadata.token_endpoint_auth_method ?? 'none';
    if (method !== 'none') throw new OAuthProtocolError('invalid_client_metadata', 'only public clients (token_endpoint_auth_method "none") may register');
    const clientId = newId('dcr');
    const record: Omit<PreRegisteredClient, 'secret_sha256'> = {
      client_id: clientId,
      client_name: metadata.client_name,
      redirect_uris: metadata.redirect_uris,
    };
    const inserted = await this.store.insertCapped('client', clientId, JSON.stringify(record), REGISTRATION_TTL_SECONDS, this.maxRegistered);
    if (!inserted) throw new OAuthProtocolError('temporarily_unavailable', 'no more clients can be registered now', 503);
    return {
      ...record,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /** Checks what the client presented at the token or revocation endpoint against what it is. */
  authenticate(client: OAuthClient, secret: string | undefined, usedBasic: boolean): void {
    if (client.secretSha256 === undefined) {
      if (secret !== undefined) throw badClientAuth(usedBasic);
      return;
    }
    if (secret === undefined || !digestsEqual(hashSecret(secret), client.secretSha256)) throw badClientAuth(usedBasic);
  }

  private async fromMetadataDocument(url: string): Promise<OAuthClient> {
    checkMetadataUrl(url);
    const cached = await this.store.get('cimd', url);
    if (cached) return JSON.parse(cached) as OAuthClient;
    let document: unknown;
    try {
      document = await fetchClientMetadata(url, this.cimd);
    } catch (error) {
      throw new OAuthProtocolError('invalid_client', error instanceof CimdFetchError ? error.message : 'the client metadata document could not be fetched');
    }
    const metadata = parseMetadata(document, 'invalid_client');
    if ((document as { client_id?: unknown }).client_id !== url) throw new OAuthProtocolError('invalid_client', 'the metadata document names another client_id');
    if ((metadata.token_endpoint_auth_method ?? 'none') !== 'none') throw new OAuthProtocolError('invalid_client', 'only public clients may use a metadata document');
    const client: OAuthClient = { clientId: url, clientName: metadata.client_name, redirectUris: metadata.redirect_uris };
    await this.store.put('cimd', url, JSON.stringify(client), CIMD_CACHE_SECONDS);
    return client;
  }
}

function fromStored(stored: Omit<PreRegisteredClient, 'secret_sha256'> & { secret_sha256?: string }): OAuthClient {
  return { clientId: stored.client_id, clientName: stored.client_name, redirectUris: stored.redirect_uris, secretSha256: stored.secret_sha256 };
}

/** A metadata URL: https, a path, nothing that could make two URLs name one client. */
function checkMetadataUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw unknownClient();
  }
  if (url.protocol !== 'https:') throw new OAuthProtocolError('invalid_client', 'the client_id must be an https URL');
  if (url.pathname === '/' || url.hash || url.username || url.password || /\/\.\.?(\/|$)/.test(raw)) {
    throw new OAuthProtocolError('invalid_client', 'the client_id URL is not a valid metadata document URL');
  }
}

/** Parses client metadata with the SDK's schema and the connector's own rules on redirect URIs. */
function parseMetadata(body: unknown, code: 'invalid_client_metadata' | 'invalid_client' = 'invalid_client_metadata') {
  const parsed = OAuthClientMetadataSchema.safeParse(body);
  if (!parsed.success) throw new OAuthProtocolError(code, 'the client metadata is not valid');
  const { redirect_uris: uris, token_endpoint_auth_method } = parsed.data;
  if (uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every(isAllowedRedirectUri)) {
    throw new OAuthProtocolError(code === 'invalid_client' ? code : 'invalid_redirect_uri', 'redirect_uris must be https, loopback http or a private-use scheme');
  }
  const name = typeof parsed.data.client_name === 'string' && parsed.data.client_name.trim() ? parsed.data.client_name.trim() : 'Unnamed app';
  return { redirect_uris: uris, token_endpoint_auth_method, client_name: name.replace(CONTROL_CHARACTERS, '').slice(0, MAX_NAME) };
}

/** https anywhere; http only on a loopback host (native apps, RFC 8252); or a reverse-domain private scheme. */
export function isAllowedRedirectUri(raw: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.hash || url.username || url.password || raw.length > 2000) return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return LOOPBACK.has(url.hostname);
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol);
}

function unknownClient(): OAuthProtocolError {
  return new OAuthProtocolError('invalid_client', 'the client is not known');
}

function badClientAuth(usedBasic: boolean): OAuthProtocolError {
  return new OAuthProtocolError('invalid_client', 'client authentication failed', 401, usedBasic ? { 'WWW-Authenticate': 'Basic realm="connector"' } : {});
}
