import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { RateLimitedError } from '../../shared/errors/rate-limited-error';
import { authorizationServerMetadata, OAUTH_PATHS, protectedResourceMetadata, wellKnownPaths } from '../../shared/oauth/discovery';
import type { OAuthServices } from '../../shared/oauth/oauth-services';
import { OAuthProtocolError } from '../../shared/oauth/oauth-protocol-error';
import type { RateLimitStore } from '../../shared/stores/rate-limit-store';
import { oauthErrorHandler } from '../http/oauth-answer';
import { state } from '../http/locals';
import { clientCredentials } from './client-credentials';

const FORM = express.urlencoded({ extended: false, limit: '8kb', parameterLimit: 20, type: () => true });
const JSON_BODY = express.json({ limit: '16kb', strict: true, type: () => true });
/** Registration is cheap to ask for and costly to keep: a smaller per-address budget than the rest. */
const REGISTER_SHARE = 10;

/** What the OAuth router needs. */
export interface OAuthRouteDependencies {
  oauth: OAuthServices;
  publicUrl: string;
  rateLimits: RateLimitStore;
  perMinute: number;
}

/**
 * The authorization server's HTTP face: discovery documents (RFC 9728, RFC 8414), `/oauth/authorize`,
 * `/oauth/token`, `/oauth/register` (RFC 7591) and `/oauth/revoke` (RFC 7009). Errors speak RFC 6749.
 * Browser-based clients (MCP Inspector) call these across origins, and none of them uses cookies, so any
 * origin may read them.
 */
export function oauthRoutes({ oauth, publicUrl, rateLimits, perMinute }: OAuthRouteDependencies): Router {
  const router = Router();
  const label = (route: string) => (_req: Request, res: Response, next: NextFunction) => {
    state(res).route = route;
    res.set({ 'Access-Control-Allow-Origin': '*', 'Cache-Control': 'no-store' });
    if (_req.method === 'OPTIONS') {
      res.set({ 'Access-Control-Allow-Methods': 'GET, POST', 'Access-Control-Allow-Headers': 'authorization, content-type, mcp-protocol-version', 'Access-Control-Max-Age': '600' });
      return void res.status(204).end();
    }
    next();
  };
  const limit = (share: number) => async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const window = await rateLimits.hit(`oauth:${share}:${req.ip ?? 'unknown'}`, 60);
      if (window.count > Math.max(1, Math.floor(perMinute / share))) throw new RateLimitedError(window.resetInSeconds);
      next();
    } catch (error) {
      next(error);
    }
  };
  const isForm = (req: Request) => {
    if (!req.is('application/x-www-form-urlencoded')) throw new OAuthProtocolError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  };

  const { resource, authorizationServer } = wellKnownPaths(publicUrl);
  const resourceJson = protectedResourceMetadata(publicUrl);
  const serverJson = authorizationServerMetadata(publicUrl);
  router.all(resource, label('/.well-known/oauth-protected-resource'), (_req, res) => void res.set('Cache-Control', 'public, max-age=3600').json(resourceJson));
  router.all(authorizationServer, label('/.well-known/oauth-authorization-server'), (_req, res) => void res.set('Cache-Control', 'public, max-age=3600').json(serverJson));

  router.get(OAUTH_PATHS.authorize, label(OAUTH_PATHS.authorize), limit(1), async (req, res, next) => {
    try {
      res.redirect(302, await oauth.consent.authorize(req.query as Record<string, unknown>));
    } catch (error) {
      next(error);
    }
  });
  router.all([OAUTH_PATHS.token, OAUTH_PATHS.revoke, OAUTH_PATHS.register], (req, res, next) => {
    if (req.method === 'OPTIONS') return label(req.path)(req, res, next);
    state(res).route = req.path;
    if (req.method !== 'POST') return next(new OAuthProtocolError('invalid_request', 'use POST', 405, { Allow: 'POST' }));
    next();
  });
  router.post(OAUTH_PATHS.token, label(OAUTH_PATHS.token), limit(1), FORM, async (req, res, next) => {
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
  router.post(OAUTH_PATHS.revoke, label(OAUTH_PATHS.revoke), limit(1), FORM, async (req, res, next) => {
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
  router.post(OAUTH_PATHS.register, label(OAUTH_PATHS.register), limit(REGISTER_SHARE), JSON_BODY, async (req, res, next) => {
    try {
      if (!req.is('application/json')) throw new OAuthProtocolError('invalid_client_metadata', 'the body must be application/json');
      res.status(201).json(await oauth.clients.register(req.body));
    } catch (error) {
      next(error);
    }
  });
  router.use([OAUTH_PATHS.authorize, OAUTH_PATHS.token, OAUTH_PATHS.revoke, OAUTH_PATHS.register], oauthErrorHandler);
  return router;
}
