import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { ConnectorUnderTest } from './harness';

/**
 * What the helpers need of a connector under test: its address, a checked client, and the two settings the
 * flow uses. An in-process connector is one; so is a spawned API process with its environment's values.
 */
export type OAuthTarget = Pick<ConnectorUnderTest, 'baseUrl' | 'call'> & {
  config: Pick<ConnectorUnderTest['config'], 'publicUrl' | 'linkSecret'>;
};

/** A connector seen as the helpers' target from its address, checked client and the two settings it was given. */
export function oauthTarget(
  api: Pick<ConnectorUnderTest, 'baseUrl' | 'call'>,
  settings: { publicUrl: string; linkSecret: string },
): OAuthTarget {
  return { baseUrl: api.baseUrl, call: api.call, config: settings };
}

/** The redirect URI test clients register; nothing listens there: the test reads the redirect itself. */
export const REDIRECT_URI = 'http://localhost:9/callback';

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Registers a public client by DCR and returns its id. */
export async function registerClient(baseUrl: string, redirectUris: string[] = [REDIRECT_URI], clientName = 'Test App'): Promise<string> {
  const res = await fetch(`${baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: clientName, redirect_uris: redirectUris, token_endpoint_auth_method: 'none' }),
  });
  const body = (await res.json()) as any;
  expect(res.status, JSON.stringify(body)).to.equal(201);
  return body.client_id as string;
}

/** `GET /oauth/authorize` without following the redirect. */
export async function authorize(baseUrl: string, params: Record<string, string>): Promise<Response> {
  return fetch(`${baseUrl}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
}

/** Authorization parameters for a client, with a fresh PKCE pair and state. */
export function authorizeParams(connector: OAuthTarget, clientId: string, overrides: Record<string, string> = {}) {
  const pkce = pkcePair();
  const state = randomBytes(8).toString('hex');
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: pkce.challenge,
    code_challenge_method: 'S256',
    state,
    resource: connector.config.publicUrl,
    ...overrides,
  };
  return { params, pkce, state };
}

/** Plays the browser up to the consent screen: the pending request id the consent URL carries. */
export async function pendingRequestId(res: Response): Promise<string> {
  expect(res.status, await res.clone().text()).to.equal(302);
  const location = new URL(res.headers.get('location')!);
  const request = location.searchParams.get('request');
  expect(request).to.match(/^authreq_/);
  return request!;
}

/** Plays the dashboard: answers a pending request with the link secret and returns `redirect_to` parsed. */
export async function answerConsent(connector: OAuthTarget, request: string, answer: { subject: string } | { deny: true }): Promise<URL> {
  return (await answerConsentFully(connector, request, answer)).redirect;
}

/** {@link answerConsent}, also answering the `connection_id` an approval carries (undefined for a denial). */
async function answerConsentFully(
  connector: OAuthTarget,
  request: string,
  answer: { subject: string } | { deny: true },
): Promise<{ redirect: URL; connectionId?: string }> {
  const res = await connector.call('POST', `/v1/link/authorizations/${request}`, {
    body: answer,
    headers: { 'x-link-secret': connector.config.linkSecret },
  });
  expect(res.status, res.text).to.equal(200);
  return { redirect: new URL(res.body.redirect_to), connectionId: res.body.connection_id };
}

/** `POST /oauth/token` with a form body. */
export async function tokenRequest(
  baseUrl: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

/**
 * Runs register → authorize → approve and answers the code with what is needed to redeem it, and the
 * connection the approval made.
 */
export async function codeFor(connector: OAuthTarget, subject: string, clientId?: string) {
  const client = clientId ?? (await registerClient(connector.baseUrl));
  const { params, pkce, state } = authorizeParams(connector, client);
  const request = await pendingRequestId(await authorize(connector.baseUrl, params));
  const { redirect, connectionId } = await answerConsentFully(connector, request, { subject });
  return { clientId: client, code: redirect.searchParams.get('code')!, verifier: pkce.verifier, state, redirect, connectionId };
}

/** The token-endpoint form that redeems a code. */
export function codeForm(clientId: string, code: string, verifier: string, redirectUri = REDIRECT_URI): Record<string, string> {
  return { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier, client_id: clientId };
}

/**
 * OAuth set-up to a bearer token, as an app does it: register (unless `clientId` is given) → authorize →
 * approve for `subject` → redeem the code, which must answer 200. Answers the token endpoint's body with the
 * client, the connection the approval made, and the two tokens.
 */
export async function oauthTokens(connector: OAuthTarget, subject: string, clientId?: string) {
  const granted = await codeFor(connector, subject, clientId);
  const res = await tokenRequest(connector.baseUrl, codeForm(granted.clientId, granted.code, granted.verifier));
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return {
    clientId: granted.clientId,
    connectionId: granted.connectionId,
    tokens: res.body,
    accessToken: res.body.access_token as string,
    refreshToken: res.body.refresh_token as string,
  };
}
