import type { TokenService } from '../connections/token-service';
import type { Config } from '../../platform/config/config';
import type { ConnectionStore } from '../connections/connection-store';
import type { OAuthStateStore } from './oauth-state-store';
import type { CimdFetchOptions } from './cimd-fetcher';
import { ClientRegistry } from './client-registry';
import { ConsentService } from './consent-service';
import { GrantService, type GrantHooks } from './grant-service';

/** The authorization server's parts. */
export interface OAuthServices {
  clients: ClientRegistry;
  consent: ConsentService;
  grants: GrantService;
}

/** Builds the authorization server on the backend's stores; `cimd` is for tests only. */
export function createOAuthServices(
  config: Pick<Config, 'publicUrl' | 'tokenTtlSeconds' | 'oauth'>,
  stores: { oauth: OAuthStateStore; connections: ConnectionStore },
  tokens: TokenService,
  hooks: GrantHooks = {},
  cimd: CimdFetchOptions = {},
): OAuthServices {
  const clients = new ClientRegistry(stores.oauth, config.oauth, cimd);
  const consent = new ConsentService(stores.oauth, stores.connections, clients, {
    issuer: config.publicUrl,
    consentUrl: config.oauth.consentUrl,
    requestTtlSeconds: config.oauth.requestTtlSeconds,
    codeTtlSeconds: config.oauth.codeTtlSeconds,
    grantTtlSeconds: config.tokenTtlSeconds,
  });
  const grants = new GrantService(
    stores.oauth,
    stores.connections,
    tokens,
    {
      issuer: config.publicUrl,
      accessTokenTtlSeconds: config.oauth.accessTokenTtlSeconds,
    },
    hooks,
  );
  return { clients, consent, grants };
}
