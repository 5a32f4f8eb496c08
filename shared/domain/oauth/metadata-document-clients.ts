import { CimdFetchError, type CimdFetchOptions, fetchClientMetadata } from './cimd-fetcher';
import { parseClientMetadata, showableClientName } from './client-metadata';
import type { OAuthClient } from './known-client';
import { OAuthProtocolError } from './oauth-protocol-error';
import type { OAuthStateStore } from './oauth-state-store';

/** How long a fetched metadata document is trusted before it is fetched again. */
const CACHE_SECONDS = 300;
/**
 * How long a failed fetch (or a refused document) is remembered, on every replica since it is in the
 * store: asking again within it costs a store read, not a request to the URL.
 */
export const CIMD_FAILURE_CACHE_SECONDS = 60;
/** Distinct documents one process fetches at once; more answer `temporarily_unavailable`. */
export const CIMD_FETCHES_AT_ONCE = 4;

/** A cached outcome: the client, or why its document was refused. */
type CachedOutcome = OAuthClient | { refused: string };

/**
 * Clients identified by a Client ID Metadata Document: an https `client_id` URL, fetched with the
 * {@link fetchClientMetadata} SSRF limits. Outcomes, failures included, are cached in the store, so a URL
 * costs at most one fetch per cache period whoever asks and on whichever replica. Within a process, callers
 * asking for a document being fetched share that fetch, and at most {@link CIMD_FETCHES_AT_ONCE} distinct
 * documents are fetched at once, so slow URLs cannot tie up the process's sockets.
 */
export class MetadataDocumentClients {
  private readonly inFlight = new Map<string, Promise<OAuthClient>>();

  constructor(
    private readonly store: OAuthStateStore,
    private readonly options: CimdFetchOptions = {},
  ) {}

  /** The client the document at `url` describes; `invalid_client` when it cannot be used. */
  async find(url: string): Promise<OAuthClient> {
    checkMetadataUrl(url);
    const cached = await this.store.get('cimd', url);
    if (cached) return fromCache(cached);
    const running = this.inFlight.get(url);
    if (running !== undefined) return running;
    // Not remembered: being busy says nothing about the document.
    if (this.inFlight.size >= CIMD_FETCHES_AT_ONCE) {
      throw new OAuthProtocolError(
        'temporarily_unavailable',
        'too many client metadata documents are being fetched; try again shortly',
        503,
        { 'Retry-After': '1' },
      );
    }
    const fetching = this.fetchAndRemember(url).finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, fetching);
    return fetching;
  }

  private async fetchAndRemember(url: string): Promise<OAuthClient> {
    let client: OAuthClient;
    try {
      client = toClient(url, await fetchClientMetadata(url, this.options));
    } catch (error) {
      const refusal =
        error instanceof OAuthProtocolError
          ? error
          : new OAuthProtocolError(
              'invalid_client',
              error instanceof CimdFetchError ? error.message : 'the client metadata document could not be fetched',
            );
      const remembered: CachedOutcome = { refused: refusal.description };
      await this.store.put('cimd', url, JSON.stringify(remembered), CIMD_FAILURE_CACHE_SECONDS);
      throw refusal;
    }
    await this.store.put('cimd', url, JSON.stringify(client), CACHE_SECONDS);
    return client;
  }
}

/** The client a fetched document describes, once it names itself and is a public client's. */
function toClient(url: string, document: unknown): OAuthClient {
  const metadata = parseClientMetadata(document, 'invalid_client');
  if ((document as { client_id?: unknown }).client_id !== url)
    throw new OAuthProtocolError('invalid_client', 'the metadata document names another client_id');
  if ((metadata.token_endpoint_auth_method ?? 'none') !== 'none')
    throw new OAuthProtocolError('invalid_client', 'only public clients may use a metadata document');
  return { clientId: url, clientName: metadata.client_name, redirectUris: metadata.redirect_uris };
}

function fromCache(cached: string): OAuthClient {
  const outcome = JSON.parse(cached) as CachedOutcome;
  if ('refused' in outcome) throw new OAuthProtocolError('invalid_client', outcome.refused);
  // Entries cached by a release before 0.6.0 may hold a name with controls in it.
  return { ...outcome, clientName: showableClientName(outcome.clientName) };
}

/** A metadata URL: https, a path, nothing that could make two URLs name one client. */
function checkMetadataUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OAuthProtocolError('invalid_client', 'the client is not known');
  }
  if (url.protocol !== 'https:') throw new OAuthProtocolError('invalid_client', 'the client_id must be an https URL');
  if (url.pathname === '/' || url.hash || url.username || url.password || /\/\.\.?(\/|$)/.test(raw)) {
    throw new OAuthProtocolError('invalid_client', 'the client_id URL is not a valid metadata document URL');
  }
}
