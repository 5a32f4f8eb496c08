import { NotFoundError } from '../../platform/errors/problems';
import { newId } from '../../platform/util/ids';
import type { ConnectionStore } from '../connections/connection-store';
import { normalizeSubject } from '../subjects/normalize-subject';
import { showableClientName } from './client-metadata';
import type { ClientRegistry } from './client-registry';
import type { OAuthClient } from './known-client';
import { type OAuthErrorCode, OAuthProtocolError } from './oauth-protocol-error';
import type { OAuthStateStore } from './oauth-state-store';
import { hashSecret, newOpaqueSecret } from './opaque-secret';
import { type CodeGrant, type PendingRequest, redirectWith } from './pending-request';
import { isS256Challenge } from './pkce';

/** Settings of the consent hand-off. */
export interface ConsentSettings {
  issuer: string;
  consentUrl: string;
  requestTtlSeconds: number;
  codeTtlSeconds: number;
  /** How long a granted connection (and its refresh tokens) lasts. */
  grantTtlSeconds: number;
}

/**
 * What the dashboard is shown about a pending request. The redirect URI's scheme and host are as the URI
 * has them: for `com.example.app://evil.test/cb` the scheme `com.example.app` says the browser goes to an
 * app, whatever the host claims.
 */
export interface PendingView {
  request: string;
  client: { client_id: string; client_name: string; redirect_scheme: string; redirect_host: string };
  expires_at: string;
}

/** The consent screen's answer: approve for a subject, or deny. */
export type ConsentAnswer = { subject: string } | { deny: true };

/** Where the dashboard sends the browser, and on approval the connection made (to list or revoke it later). */
export interface ConsentOutcome {
  redirectTo: string;
  connectionId?: string;
}

/**
 * The authorization endpoint's logic and the consent hand-off: `/oauth/authorize` checks the request and
 * parks it; the dashboard reads it and answers it; approval makes a connection for the subject and a
 * single-use code, and records that a person approved the client with that redirect URI. Everything lives
 * in the backend's store, so each step may land on any replica.
 */
export class ConsentService {
  constructor(
    private readonly store: OAuthStateStore,
    private readonly connections: ConnectionStore,
    private readonly clients: ClientRegistry,
    private readonly settings: ConsentSettings,
  ) {}

  /**
   * Checks an authorization request and answers where to send the browser: the consent screen, or the
   * client's redirect URI with an error. Throws (to be shown, never redirected) while the client or its
   * redirect URI is not established, and while the redirect URI is not trusted (see {@link trustsRedirect}).
   */
  async authorize(params: Record<string, unknown>): Promise<string> {
    const client = await this.clients.find(params.client_id);
    const redirectUri = params.redirect_uri;
    if (typeof redirectUri !== 'string' || !client.redirectUris.includes(redirectUri)) {
      throw new OAuthProtocolError('invalid_request', 'redirect_uri is missing or not registered for this client');
    }
    const state = typeof params.state === 'string' ? params.state : undefined;
    const fail = async (error: OAuthErrorCode, description: string): Promise<string> => {
      if (!(await this.trustsRedirect(client, redirectUri))) throw new OAuthProtocolError(error, description);
      return redirectWith(redirectUri, { error, error_description: description, state, iss: this.settings.issuer });
    };
    if (params.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be code');
    if (params.code_challenge_method !== 'S256') return fail('invalid_request', 'PKCE with code_challenge_method S256 is required');
    if (!isS256Challenge(params.code_challenge)) return fail('invalid_request', 'code_challenge is not a valid S256 challenge');
    if (params.resource !== undefined && !sameResource(params.resource, this.settings.issuer)) {
      return fail('invalid_target', 'resource must be this connector');
    }
    if (state !== undefined && state.length > 1024) return fail('invalid_request', 'state is too long');
    const pending: PendingRequest = {
      clientId: client.clientId,
      clientName: client.clientName,
      redirectUri,
      codeChallenge: params.code_challenge,
      state,
      expiresAt: Date.now() + this.settings.requestTtlSeconds * 1000,
    };
    const id = newId('authreq');
    await this.store.put('request', id, JSON.stringify(pending), this.settings.requestTtlSeconds);
    return redirectWith(this.settings.consentUrl, { request: id });
  }

  /** The dashboard's view of a pending request; 404 once it is answered or expired. */
  async describe(requestId: string): Promise<PendingView> {
    const stored = await this.store.get('request', requestId);
    if (!stored) throw expiredRequest();
    const pending = JSON.parse(stored) as PendingRequest;
    const redirect = new URL(pending.redirectUri);
    return {
      request: requestId,
      client: {
        client_id: pending.clientId,
        // Requests parked by a release before 0.6.0 may hold a name with bidirectional controls in it.
        client_name: showableClientName(pending.clientName),
        redirect_scheme: redirect.protocol.slice(0, -1),
        redirect_host: redirect.host,
      },
      expires_at: new Date(pending.expiresAt).toISOString(),
    };
  }

  /** Answers a pending request once; resolves to where the dashboard sends the browser, and the connection. */
  async answer(requestId: string, answer: ConsentAnswer): Promise<ConsentOutcome> {
    // The subject is checked before the request is used up, so a typo does not cost the person the flow.
    const subject = 'subject' in answer ? normalizeSubject(answer.subject) : undefined;
    const consumed = await this.store.consume('request', requestId);
    if (!consumed || consumed.reused) throw expiredRequest();
    const pending = JSON.parse(consumed.value) as PendingRequest;
    const base = { state: pending.state, iss: this.settings.issuer };
    if (subject === undefined) {
      return {
        redirectTo: redirectWith(pending.redirectUri, { error: 'access_denied', error_description: 'the person declined', ...base }),
      };
    }
    const issuedAt = Math.floor(Date.now() / 1000);
    const expiresAt = issuedAt + this.settings.grantTtlSeconds;
    // Recorded first, so a registration is never evicted while a grant of it lives; one evicted while the
    // request waited (a flood of registrations) can be granted nothing, and the app must register again.
    if (!(await this.clients.recordApproval(pending.clientId, expiresAt))) {
      return {
        redirectTo: redirectWith(pending.redirectUri, {
          error: 'access_denied',
          error_description: 'the app registration has expired; register again',
          ...base,
        }),
      };
    }
    const connectionId = newId('conn');
    await this.connections.create({
      id: connectionId,
      subject,
      issuedAt,
      expiresAt,
      revoked: false,
      client: { id: pending.clientId, name: pending.clientName },
    });
    const code = newOpaqueSecret();
    const grant: CodeGrant = {
      connectionId,
      subject,
      clientId: pending.clientId,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
    };
    await this.store.put('code', hashSecret(code), JSON.stringify(grant), this.settings.codeTtlSeconds);
    // Renewed with every approval, so the mark lasts as long as the newest grant it came with could.
    await this.store.put('approved', approvalKey(pending.clientId, pending.redirectUri), '1', this.settings.grantTtlSeconds);
    return { redirectTo: redirectWith(pending.redirectUri, { code, ...base }), connectionId };
  }

  /**
   * Whether errors may be sent to this redirect URI (RFC 9700 §4.11.2: only to a URI the server trusts).
   * Anyone can register a public client, by DCR or with a metadata document, naming any URI; redirecting
   * its errors before a person has approved it would make the connector an open redirector. A confidential
   * client's URIs were registered by the operator. The approval is of this client with this very URI.
   */
  private async trustsRedirect(client: OAuthClient, redirectUri: string): Promise<boolean> {
    // Only the operator makes confidential clients (OAUTH_CLIENTS, npm run oauth:client); DCR and CIMD are public.
    if (client.secretSha256 !== undefined) return true;
    return (await this.store.get('approved', approvalKey(client.clientId, redirectUri))) !== undefined;
  }
}

/** RFC 8707: the one resource is `PUBLIC_URL`; a trailing slash is the same resource. */
export function sameResource(resource: unknown, publicUrl: string): boolean {
  return typeof resource === 'string' && resource.replace(/\/+$/, '') === publicUrl.replace(/\/+$/, '');
}

/** The store key of a person's approval of a client with one redirect URI. */
function approvalKey(clientId: string, redirectUri: string): string {
  return JSON.stringify([clientId, redirectUri]);
}

function expiredRequest(): NotFoundError {
  return new NotFoundError('This authorization request does not exist, has expired or was already answered.');
}
