import express, { type ErrorRequestHandler, type NextFunction, type Request, type Response, Router } from 'express';
import type { RateLimitStore } from '../../shared/domain/admission/rate-limit-store';
import { OAUTH_PATHS } from '../../shared/domain/oauth/discovery';
import { OAuthProtocolError } from '../../shared/domain/oauth/oauth-protocol-error';
import type { OAuthServices } from '../../shared/domain/oauth/oauth-services';
import { RateLimitedError } from '../../shared/platform/errors/problems';
import type { ClientKey } from '../admission/client-key';
import { state } from '../http/locals';
import { oauthErrorHandler } from '../http/oauth-answer';
import { oauthEndpoint } from '../http/oauth-endpoint';
import { clientCredentials } from './client-credentials';
import { oauthMetadataRoutes } from './oauth-metadata-routes';

const FORM = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20, type: () => true });
const JSON_BODY = express.json({ limit: '16kb', strict: true, type: () => true });
// Per client address and minute, as multiples of RATE_LIMIT_PER_MINUTE. Platforms redeem codes and refresh
// tokens from a few server addresses for all their users, so the general budget is large; registration is
// cheap to ask for and costly to keep, so it gets the plain one.
const GENERAL_MULTIPLIER = 10;
const REGISTER_MULTIPLIER = 1;

/** What the OAuth router needs. */
export interface OAuthRouteDependencies {
  oauth: OAuthServices;
  publicUrl: string;
  rateLimits: RateLimitStore;
  /** Who each endpoint's per-address limit counts (an IPv6 client by its network). */
  clientKey: ClientKey;
  perMinute: number;
  /** Error middleware that spends the address's failed-authentication budget on a failed credential. */
  credentialFailures: ErrorRequestHandler;
}

/**
 * The authorization server's endpoints: `/oauth/authorize`, `/oauth/token`, `/oauth/register` (RFC 7591)
 * and `/oauth/revoke` (RFC 7009), after the discovery documents. Errors speak RFC 6749.
 */
export function oauthRoutes({ oauth, publicUrl, rateLimits, clientKey, perMinute, credentialFailures }: OAuthRouteDependencies): Router {
  const router = Router();
  router.use(oauthMetadataRoutes(publicUrl));
  const limit = (multiplier: number) => async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const window = await rateLimits.hit(`oauth:${multiplier}:${clientKey(req)}`, 60);
      if (window.count > perMinute * multiplier) throw new RateLimitedError(window.resetInSeconds);
      next();
    } catch (error) {
      next(error);
    }
  };
  const isForm = (req: Request) => {
    if (!req.is('application/x-www-form-urlencoded'))
      throw new OAuthProtocolError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  };

  router.get(OAUTH_PATHS.authorize, oauthEndpoint(OAUTH_PATHS.authorize), limit(GENERAL_MULTIPLIER), async (req, res, next) => {
    try {
      res.redirect(302, await oauth.consent.authorize(req.query as Record<string, unknown>));
    } catch (error) {
      next(error);
    }
  });
  // Each path's own label, never `req.path`: routing ignores case and a trailing slash, and the label is a
  // metric's and a span's route, which must not carry text the caller chose.
  for (const path of [OAUTH_PATHS.token, OAUTH_PATHS.revoke, OAUTH_PATHS.register]) {
    router.all(path, (req, res, next) => {
      if (req.method === 'OPTIONS') return oauthEndpoint(path)(req, res, next);
      state(res).route = path;
      if (req.method !== 'POST') return next(new OAuthProtocolError('invalid_request', 'use POST', 405, { Allow: 'POST' }));
      next();
    });
  }
  router.post(OAUTH_PATHS.token, oauthEndpoint(OAUTH_PATHS.token), limit(GENERAL_MULTIPLIER), FORM, async (req, res, next) => {
    try {
      isForm(req);
      const form = req.body as Record<string, unknown>;
      const client = await clientCredentials(req, oauth.clients);
      if (form.grant_type === 'authorization_code') res.json(await oauth.grants.exchangeCode(client, form));
      else if (form.grant_type === 'refresh_token') res.json(await oauth.grants.refresh(client, form));
      else throw new OAuthProtocolError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
    } catch (error) {
      next(error);
    }
  });
  router.post(OAUTH_PATHS.revoke, oauthEndpoint(OAUTH_PATHS.revoke), limit(GENERAL_MULTIPLIER), FORM, async (req, res, next) => {
    try {
      isForm(req);
      const client = await clientCredentials(req, oauth.clients);
      const token = (req.body as Record<string, unknown>).token;
      if (typeof token !== 'string' || token.length > 4096) throw new OAuthProtocolError('invalid_request', 'token is missing');
      await oauth.grants.revokeToken(client, token);
      res.status(200).end();
    } catch (error) {
      next(error);
    }
  });
  router.post(OAUTH_PATHS.register, oauthEndpoint(OAUTH_PATHS.register), limit(REGISTER_MULTIPLIER), JSON_BODY, async (req, res, next) => {
    try {
      if (!req.is('application/json')) throw new OAuthProtocolError('invalid_client_metadata', 'the body must be application/json');
      res.status(201).json(await oauth.clients.register(req.body));
    } catch (error) {
      next(error);
    }
  });
  router.use([OAUTH_PATHS.token, OAUTH_PATHS.revoke], credentialFailures);
  router.use([OAUTH_PATHS.authorize, OAUTH_PATHS.token, OAUTH_PATHS.revoke, OAUTH_PATHS.register], oauthErrorHandler);
  return router;
}
