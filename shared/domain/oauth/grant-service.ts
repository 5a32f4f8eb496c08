import type { ConnectionStore } from '../connections/connection-store';
import type { TokenService } from '../connections/token-service';
import { sameResource } from './consent-service';
import type { OAuthClient } from './known-client';
import { OAuthProtocolError } from './oauth-protocol-error';
import type { OAuthStateStore } from './oauth-state-store';
import { hashSecret, newOpaqueSecret } from './opaque-secret';
import type { CodeGrant, RefreshGrant } from './pending-request';
import { s256ChallengeOf } from './pkce';

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

/** What a {@link GrantService} works with. */
export interface GrantServiceDependencies {
  store: OAuthStateStore;
  connections: ConnectionStore;
  tokens: TokenService;
  settings: { issuer: string; accessTokenTtlSeconds: number };
  hooks?: GrantHooks;
}

/**
 * The token and revocation endpoints' logic. Access tokens are the connector's own JWTs for the grant's
 * connection; refresh tokens are opaque, stored hashed, rotated on every use, and a replayed one (or a
 * replayed code) revokes the connection, since one of the two presenters must be a thief. A presentation
 * that does not match what the code or token was issued to changes nothing.
 */
export class GrantService {
  constructor(private readonly deps: GrantServiceDependencies) {}

  /**
   * `grant_type=authorization_code`, for an already authenticated client. The code is used up only by a
   * request that could redeem it: its client, redirect URI and PKCE verifier are matched in the same atomic
   * step that consumes it. Anything else is refused and leaves the code to its rightful client, so a thief
   * who presents a stolen code cannot spend it or, by making the real redemption look like a replay, revoke
   * the grant.
   */
  async exchangeCode(client: OAuthClient, form: Record<string, unknown>): Promise<TokenAnswer> {
    if (typeof form.code !== 'string' || form.code.length > 256) throw invalidGrant('code is missing');
    this.checkResource(form);
    if (typeof form.redirect_uri !== 'string') throw invalidGrant('redirect_uri does not match the authorization request');
    const challenge = s256ChallengeOf(form.code_verifier);
    if (challenge === undefined) throw invalidGrant('code_verifier does not match the code challenge');
    // Plain comparisons suffice here: the challenge and the redirect URI travelled through the browser, so they
    // are not secrets; the secret, the verifier, is only ever hashed.
    const binding = { clientId: client.clientId, redirectUri: form.redirect_uri, codeChallenge: challenge } satisfies Partial<CodeGrant>;
    const consumed = await this.deps.store.consumeMatching('code', hashSecret(form.code), binding);
    if (!consumed) throw invalidGrant('the code is unknown or expired');
    if (consumed === 'mismatch')
      throw invalidGrant('the code was issued to another client, or redirect_uri or code_verifier does not match');
    const grant = JSON.parse(consumed.value) as CodeGrant;
    if (consumed.reused) {
      await this.revoke(grant.connectionId);
      throw invalidGrant('the code was already used');
    }
    return this.issue(grant);
  }

  /**
   * `grant_type=refresh_token`: rotates the refresh token; a reused one revokes the connection. A token
   * presented by another client is refused without being used up (matched and consumed atomically).
   */
  async refresh(client: OAuthClient, form: Record<string, unknown>): Promise<TokenAnswer> {
    if (typeof form.refresh_token !== 'string' || form.refresh_token.length > 256) throw invalidGrant('refresh_token is missing');
    this.checkResource(form);
    const binding = { clientId: client.clientId } satisfies Partial<RefreshGrant>;
    const consumed = await this.deps.store.consumeMatching('refresh', hashSecret(form.refresh_token), binding);
    if (!consumed) throw invalidGrant('the refresh token is unknown or expired');
    if (consumed === 'mismatch') throw invalidGrant('the refresh token was issued to another client');
    const grant = JSON.parse(consumed.value) as RefreshGrant;
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
    const refresh = await this.deps.store.get('refresh', hashSecret(token));
    if (refresh) {
      const grant = JSON.parse(refresh) as RefreshGrant;
      if (grant.clientId === client.clientId) await this.revoke(grant.connectionId);
      return;
    }
    const principal = await this.deps.tokens.verify(token).catch(() => undefined);
    if (principal?.client?.id === client.clientId) await this.revoke(principal.connectionId);
  }

  /** RFC 8707: a `resource`, when given, must be this connector. */
  private checkResource(form: Record<string, unknown>): void {
    if (form.resource !== undefined && !sameResource(form.resource, this.deps.settings.issuer)) {
      throw new OAuthProtocolError('invalid_target', 'resource must be this connector');
    }
  }

  private async issue(grant: RefreshGrant): Promise<TokenAnswer> {
    const connection = await this.deps.connections.get(grant.connectionId);
    const now = Math.floor(Date.now() / 1000);
    if (!connection || connection.revoked || connection.expiresAt <= now || connection.subject !== grant.subject) {
      throw invalidGrant('the grant has been revoked or has expired');
    }
    const expiresAt = Math.min(now + this.deps.settings.accessTokenTtlSeconds, connection.expiresAt);
    const accessToken = this.deps.tokens.sign(grant.subject, grant.connectionId, now, expiresAt);
    const refreshToken = newOpaqueSecret();
    const record: RefreshGrant = { connectionId: grant.connectionId, subject: grant.subject, clientId: grant.clientId };
    await this.deps.store.put('refresh', hashSecret(refreshToken), JSON.stringify(record), connection.expiresAt - now);
    this.deps.hooks?.onIssued?.();
    return { access_token: accessToken, token_type: 'Bearer', expires_in: expiresAt - now, refresh_token: refreshToken };
  }

  private async revoke(connectionId: string): Promise<void> {
    const count = await this.deps.connections.revoke(connectionId);
    if (count > 0) this.deps.hooks?.onRevoked?.(count);
  }
}

function invalidGrant(description: string): OAuthProtocolError {
  return new OAuthProtocolError('invalid_grant', description);
}
