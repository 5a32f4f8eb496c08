import type { TokenService } from '../connections/token-service';
import type { ConnectionStore } from '../connections/connection-store';
import type { OAuthStateStore } from './oauth-state-store';
import type { OAuthClient } from './client-registry';
import { OAuthProtocolError } from './oauth-protocol-error';
import { hashSecret, newOpaqueSecret } from './opaque-secret';
import type { CodeGrant, RefreshGrant } from './pending-request';
import { verifiesS256 } from './pkce';
import { sameResource } from './consent-service';

/** The token endpoint's success answer (RFC 6749 §5.1). */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
}

/** Observers of grants; metrics hook here. */
export interface GrantHooks {
  onIssued?(): void;
  onRevoked?(count: number): void;
}

/**
 * The token and revocation endpoints' logic. Access tokens are the connector's own JWTs for the grant's
 * connection; refresh tokens are opaque, stored hashed, rotated on every use, and a replayed one (or a
 * replayed code) revokes the connection, since one of the two presenters must be a thief.
 */
export class GrantService {
  constructor(
    private readonly store: OAuthStateStore,
    private readonly connections: ConnectionStore,
    private readonly tokens: TokenService,
    private readonly settings: { issuer: string; accessTokenTtlSeconds: number },
    private readonly hooks: GrantHooks = {},
  ) {}

  /** `grant_type=authorization_code`, for an already authenticated client. */
  async exchangeCode(client: OAuthClient, form: Record<string, unknown>): Promise<TokenAnswer> {
    if (typeof form.code !== 'string' || form.code.length > 256) throw invalidGrant('code is missing');
    if (form.resource !== undefined && !sameResource(form.resource, this.settings.issuer)) {
      throw new OAuthProtocolError('invalid_target', 'resource must be this connector');
    }
    const consumed = await this.store.consume('code', hashSecret(form.code));
    if (!consumed) throw invalidGrant('the code is unknown or expired');
    const grant = JSON.parse(consumed.value) as CodeGrant;
    if (consumed.reused) {
      await this.revoke(grant.connectionId);
      throw invalidGrant('the code was already used');
    }
    if (grant.clientId !== client.clientId) throw invalidGrant('the code was issued to another client');
    if (form.redirect_uri !== grant.redirectUri) throw invalidGrant('redirect_uri does not match the authorization request');
    if (!verifiesS256(form.code_verifier, grant.codeChallenge)) throw invalidGrant('code_verifier does not match the code challenge');
    return this.issue(grant);
  }

  /** `grant_type=refresh_token`: rotates the refresh token; a reused one revokes the connection. */
  async refresh(client: OAuthClient, form: Record<string, unknown>): Promise<TokenAnswer> {
    if (typeof form.refresh_token !== 'string' || form.refresh_token.length > 256) throw invalidGrant('refresh_token is missing');
    if (form.resource !== undefined && !sameResource(form.resource, this.settings.issuer)) {
      throw new OAuthProtocolError('invalid_target', 'resource must be this connector');
    }
    const consumed = await this.store.consume('refresh', hashSecret(form.refresh_token));
    if (!consumed) throw invalidGrant('the refresh token is unknown or expired');
    const grant = JSON.parse(consumed.value) as RefreshGrant;
    if (grant.clientId !== client.clientId) throw invalidGrant('the refresh token was issued to another client');
    if (consumed.reused) {
      await this.revoke(grant.connectionId);
      throw invalidGrant('the refresh token was already used; the connection is revoked');
    }
    return this.issue(grant);
  }

  /**
   * RFC 7009: revokes the connection behind a refresh or access token of this client. Unknown tokens, and
   * tokens of other clients, are ignored (the answer is the same 200 either way).
   */
  async revokeToken(client: OAuthClient, token: string): Promise<void> {
    const refresh = await this.store.get('refresh', hashSecret(token));
    if (refresh) {
      const grant = JSON.parse(refresh) as RefreshGrant;
      if (grant.clientId === client.clientId) await this.revoke(grant.connectionId);
      return;
    }
    const principal = await this.tokens.verify(token).catch(() => undefined);
    if (principal?.client?.id === client.clientId) await this.revoke(principal.connectionId);
  }

  private async issue(grant: RefreshGrant): Promise<TokenAnswer> {
    const connection = await this.connections.get(grant.connectionId);
    const now = Math.floor(Date.now() / 1000);
    if (!connection || connection.revoked || connection.expiresAt <= now || connection.subject !== grant.subject) {
      throw invalidGrant('the grant has been revoked or has expired');
    }
    const expiresAt = Math.min(now + this.settings.accessTokenTtlSeconds, connection.expiresAt);
    const accessToken = this.tokens.sign(grant.subject, grant.connectionId, now, expiresAt);
    const refreshToken = newOpaqueSecret();
    const record: RefreshGrant = { connectionId: grant.connectionId, subject: grant.subject, clientId: grant.clientId };
    await this.store.put('refresh', hashSecret(refreshToken), JSON.stringify(record), connection.expiresAt - now);
    this.hooks.onIssued?.();
    return { access_token: accessToken, token_type: 'Bearer', expires_in: expiresAt - now, refresh_token: refreshToken };
  }

  private async revoke(connectionId: string): Promise<void> {
    const count = await this.connections.revoke(connectionId);
    if (count > 0) this.hooks.onRevoked?.(count);
  }
}

function invalidGrant(description: string): OAuthProtocolError {
  return new OAuthProtocolError('invalid_grant', description);
}
