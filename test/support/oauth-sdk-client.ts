import { randomBytes } from 'node:crypto';
import type { OAuthClientProvider } from '@modelcontextprotocol/client';
import { REDIRECT_URI } from './oauth-helpers';

type Provider = OAuthClientProvider;

/**
 * The SDK's `OAuthClientProvider`, kept in memory as an app would keep it on disk. `redirectToAuthorization`
 * only records the URL: the test plays the browser.
 */
export class TestOAuthProvider implements Provider {
  authorizationUrl?: URL;
  private client?: Awaited<ReturnType<Provider['clientInformation']>>;
  private stored?: Awaited<ReturnType<Provider['tokens']>>;
  private verifier = '';
  private discovery?: Awaited<ReturnType<NonNullable<Provider['discoveryState']>>>;

  constructor(readonly clientMetadataUrl?: string) {}

  get redirectUrl(): string {
    return REDIRECT_URI;
  }

  get clientMetadata() {
    return {
      client_name: 'SDK Test App',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    return randomBytes(12).toString('hex');
  }

  clientInformation() {
    return this.client;
  }

  saveClientInformation(information: NonNullable<Awaited<ReturnType<Provider['clientInformation']>>>): void {
    this.client = information;
  }

  tokens() {
    return this.stored;
  }

  saveTokens(tokens: NonNullable<Awaited<ReturnType<Provider['tokens']>>>): void {
    this.stored = tokens;
  }

  redirectToAuthorization(url: URL): void {
    this.authorizationUrl = url;
  }

  saveCodeVerifier(verifier: string): void {
    this.verifier = verifier;
  }

  codeVerifier(): string {
    return this.verifier;
  }

  saveDiscoveryState(state: NonNullable<Awaited<ReturnType<NonNullable<Provider['discoveryState']>>>>): void {
    this.discovery = state;
  }

  discoveryState() {
    return this.discovery;
  }
}

/**
 * A fetch for the SDK that sends requests for `publicUrl` to the replicas in turn (A, B, A, ...), recording
 * which replica served which path, so a test can show that each step of one flow crossed replicas.
 */
export function replicaFetch(publicUrl: string, replicas: readonly string[]) {
  const origin = new URL(publicUrl).origin;
  const served: Array<{ replica: number; path: string }> = [];
  let next = 0;
  const fetchFn = (input: string | URL, init?: RequestInit): Promise<Response> => {
    const url = new URL(String(input));
    if (url.origin !== origin) return fetch(input, init);
    const replica = next++ % replicas.length;
    served.push({ replica, path: url.pathname });
    return fetch(`${replicas[replica]}${url.pathname}${url.search}`, init);
  };
  return { fetchFn, served };
}
