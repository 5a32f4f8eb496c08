import type { NextFunction, Request, Response } from 'express';
import { OAuthProtocolError } from '../../shared/domain/oauth/oauth-protocol-error';
import type { FailureBudget } from './failure-budget';

/**
 * What the token and revocation endpoints count as a failed authentication: client authentication that
 * failed (unknown client, wrong or missing secret) and a grant that is not valid for the client (a code or
 * refresh token that is unknown, used, expired or another client's, or a PKCE verifier that does not match).
 */
function isCredentialFailure(error: unknown): boolean {
  return error instanceof OAuthProtocolError && (error.error === 'invalid_client' || error.error === 'invalid_grant');
}

/**
 * Error middleware for `/oauth/token` and `/oauth/revoke`, ahead of the OAuth error answer: each failed
 * credential spends the address's failed-authentication budget (the same one as REST and MCP) and is
 * answered as usual within it, 429 beyond it. A successful request never reaches it.
 */
export function oauthFailureBudget(failures: FailureBudget) {
  return async (error: unknown, req: Request, res: Response, next: NextFunction): Promise<void> => {
    if (!isCredentialFailure(error)) return next(error);
    try {
      next((await failures.spend(req, res)) ?? error);
    } catch (storeError) {
      next(storeError);
    }
  };
}
