import type { OAuthStateStore } from '../stores/oauth-state-store';
import { newId } from '../util/ids';
import type { CimdFetchOptions } from './cimd-fetcher';
import { parseClientMetadata, showableClientName } from './client-metadata';
import { MetadataDocumentClients } from './metadata-document-clients';
import type { PreRegisteredClient } from './oauth-config';
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

/**
 * Finds and registers clients: pre-registered confidential ones (from `OAUTH_CLIENTS` or the store),
 * dynamically registered public ones (RFC 7591), and Client ID Metadata Documents (an https `client_id`,
 * see {@link MetadataDocumentClients}). Client metadata is parsed by {@link parseClientMetadata}.
 */
export class ClientRegistry {
  private readonly preRegistered: Map<string, PreRegisteredClient>;
  private readonly maxRegistered: number;
  private readonly documents: MetadataDocumentClients;

  constructor(
    private readonly store: OAuthStateStore,
    settings: { clients: readonly PreRegisteredClient[]; maxRegisteredClients: number },
    cimd: CimdFetchOptions = {},
  ) {
    this.maxRegistered = settings.maxRegisteredClients;
    this.preRegistered = new Map(settings.clients.map((client) => [client.client_id, client]));
    this.documents = new MetadataDocumentClients(store, cimd);
  }

  /** The client with this id; `invalid_client` when there is none. */
  async find(clientId: unknown): Promise<OAuthClient> {
    if (typeof clientId !== 'string' || clientId.length === 0 || clientId.length > 512) throw unknownClient();
    if (clientId.startsWith('https://') || clientId.startsWith('http://')) return this.documents.find(clientId);
    const configured = this.preRegistered.get(clientId);
    if (configured) return fromStored(configured);
    const stored = await this.store.get('client', clientId);
    if (!stored) throw unknownClient();
    return fromStored(JSON.parse(stored) as PreRegisteredClient);
  }

  /** Dynamic Client Registration (RFC 7591) of a public client; the answer is the registration. */
  async register(body: unknown): Promise<Record<string, unknown>> {
    const metadata = parseClientMetadata(body);
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
}

function fromStored(stored: Omit<PreRegisteredClient, 'secret_sha256'> & { secret_sha256?: string }): OAuthClient {
  return {
    clientId: stored.client_id,
    // Registrations made by an earlier release may hold a name with bidirectional controls in it.
    clientName: showableClientName(stored.client_name),
    redirectUris: stored.redirect_uris,
    secretSha256: stored.secret_sha256,
  };
}

function unknownClient(): OAuthProtocolError {
  return new OAuthProtocolError('invalid_client', 'the client is not known');
}

function badClientAuth(usedBasic: boolean): OAuthProtocolError {
  return new OAuthProtocolError('invalid_client', 'client authentication failed', 401, usedBasic ? { 'WWW-Authenticate': 'Basic realm="connector"' } : {});
}
