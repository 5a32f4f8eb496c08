import type { PreRegisteredClient } from '../../platform/config/oauth-config';
import { newId } from '../../platform/util/ids';
import type { CimdFetchOptions } from './cimd-fetcher';
import { parseClientMetadata, showableClientName } from './client-metadata';
import type { OAuthClient } from './known-client';
import { MetadataDocumentClients } from './metadata-document-clients';
import { OAuthProtocolError } from './oauth-protocol-error';
import type { OAuthStateStore } from './oauth-state-store';
import { digestsEqual, hashSecret } from './opaque-secret';

/** A client as the store keeps it: a pre-registered one has a secret, a registered one may carry its approval. */
type StoredClient = Omit<PreRegisteredClient, 'secret_sha256'> & { secret_sha256?: string; approved_at?: number };

const REGISTERED_PREFIX = 'dcr';
/**
 * How long a registration that had a grant is kept past the end of its last one, so the app can ask the
 * person again with the same client id; from that end on it may be evicted at the cap.
 */
const KEEP_AFTER_GRANT_SECONDS = 180 * 86_400;

/** The registry's settings (the OAuth configuration fits). */
export interface ClientRegistrySettings {
  clients: readonly PreRegisteredClient[];
  maxRegisteredClients: number;
  unusedClientTtlSeconds: number;
}

/**
 * Finds and registers clients: pre-registered confidential ones (from `OAUTH_CLIENTS` or the store),
 * dynamically registered public ones (RFC 7591), and Client ID Metadata Documents (an https `client_id`,
 * see {@link MetadataDocumentClients}). A registration lives `unusedClientTtlSeconds` until a person
 * approves it; at the cap, registrations nobody approved make room for new ones, so a flood of them cannot
 * lock new apps out, and an approved client is kept while its grant lives.
 */
export class ClientRegistry {
  private readonly preRegistered: Map<string, PreRegisteredClient>;
  private readonly documents: MetadataDocumentClients;

  constructor(
    private readonly store: OAuthStateStore,
    private readonly settings: ClientRegistrySettings,
    cimd: CimdFetchOptions = {},
  ) {
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
    return fromStored(JSON.parse(stored) as StoredClient);
  }

  /** Dynamic Client Registration (RFC 7591) of a public client; the answer is the registration. */
  async register(body: unknown): Promise<Record<string, unknown>> {
    const metadata = parseClientMetadata(body);
    const method = metadata.token_endpoint_auth_method ?? 'none';
    if (method !== 'none')
      throw new OAuthProtocolError('invalid_client_metadata', 'only public clients (token_endpoint_auth_method "none") may register');
    const clientId = newId(REGISTERED_PREFIX);
    const record: StoredClient = { client_id: clientId, client_name: metadata.client_name, redirect_uris: metadata.redirect_uris };
    const { registered } = await this.store.registerClient(clientId, JSON.stringify(record), {
      ttlSeconds: this.settings.unusedClientTtlSeconds,
      cap: this.settings.maxRegisteredClients,
      keepAfterGrantSeconds: KEEP_AFTER_GRANT_SECONDS,
    });
    // Only when every registration may hold a live grant: people approved them all, so the cap is too low.
    if (!registered) throw new OAuthProtocolError('temporarily_unavailable', 'no more clients can be registered now', 503);
    return {
      ...record,
      client_id_issued_at: Math.floor(Date.now() / 1000),
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  /**
   * Records that a person approved the client, making a grant that lasts until `grantEndsAt` (seconds): a
   * registered client then keeps its registration at least that long and is no longer evicted before it.
   * Resolves to false when the registration is gone (expired, or evicted while the request waited).
   */
  async recordApproval(clientId: string, grantEndsAt: number): Promise<boolean> {
    if (!clientId.startsWith(`${REGISTERED_PREFIX}_`)) return true;
    const stored = await this.store.get('client', clientId);
    if (!stored) return false;
    const record = JSON.parse(stored) as StoredClient;
    const approved: StoredClient = { ...record, approved_at: record.approved_at ?? Math.floor(Date.now() / 1000) };
    return this.store.recordClientGrant(clientId, JSON.stringify(approved), grantEndsAt * 1000, KEEP_AFTER_GRANT_SECONDS);
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

function fromStored(stored: StoredClient): OAuthClient {
  return {
    clientId: stored.client_id,
    // Registrations made by a release before 0.6.0 may hold a name with bidirectional controls in it.
    clientName: showableClientName(stored.client_name),
    redirectUris: stored.redirect_uris,
    secretSha256: stored.secret_sha256,
    ...(stored.approved_at === undefined ? {} : { approvedAt: stored.approved_at }),
  };
}

function unknownClient(): OAuthProtocolError {
  return new OAuthProtocolError('invalid_client', 'the client is not known');
}

function badClientAuth(usedBasic: boolean): OAuthProtocolError {
  return new OAuthProtocolError(
    'invalid_client',
    'client authentication failed',
    401,
    usedBasic ? { 'WWW-Authenticate': 'Basic realm="connector"' } : {},
  );
}
