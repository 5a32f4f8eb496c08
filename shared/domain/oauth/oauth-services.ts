import type { Config } from '../../platform/config/config';
import type { ConnectionStore } from '../connections/connection-store';
import type { TokenService } from '../connections/token-service';
import type { CimdFetchOptions } from './cimd-fetcher';
import { ClientRegistry } from './client-registry';
import { ConsentService } from './consent-service';
import { type GrantHooks, GrantService } from './grant-service';
import type { OAuthStateStore } from './oauth-state-store';

/** The authorization server's parts. */
export interface OAuthServices {
  clients: ClientRegistry;
  consent: ConsentService;
  grants: GrantService;
}

/** What the authorization server is built from; `cimd` is for tests only. */
export interface OAuthDependencies {
  config: Pick<Config, 'publicUrl' | 'tokenTtlSeconds' | 'oauth'>;
  stores: { oauth: OAuthStateStore; connections: ConnectionStore };
  tokens: TokenService;
  hooks?: GrantHooks;
  cimd?: CimdFetchOptions;
}

/** Builds the authorization server on the backend's stores. */
export function createOAuthServices({ config, stores, tokens, hooks = {}, cimd = {} }: OAuthDependencies): OAuthServices {
  const clients = new ClientRegistry(stores.oauth, config.oauth, cimd);
  const consent = new ConsentService(stores.oauth, stores.connections, clients, {
    issuer: config.publicUrl,
    consentUrl: config.oauth.consentUrl,
    requestTtlSeconds: config.oauth.requestTtlSeconds,
    codeTtlSeconds: config.oauth.codeTtlSeconds,
    grantTtlSeconds: config.tokenTtlSeconds,
  });
  const grants = new GrantService({
    store: stores.oauth,
    connections: stores.connections,
    tokens,
    settings: { issuer: config.publicUrl, accessTokenTtlSeconds: config.oauth.accessTokenTtlSeconds },
    hooks,
  });
  return { clients, consent, grants };
}
