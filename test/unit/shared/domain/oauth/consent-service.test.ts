import { expect } from 'chai';
import { MemoryConnectionStore } from '../../../../../shared/adapters/memory/memory-connection-store';
import { MemoryOAuthStateStore } from '../../../../../shared/adapters/memory/memory-oauth-state-store';
import type { ClientRegistry } from '../../../../../shared/domain/oauth/client-registry';
import { ConsentService, sameResource } from '../../../../../shared/domain/oauth/consent-service';
import type { OAuthClient } from '../../../../../shared/domain/oauth/known-client';
import { hashSecret } from '../../../../../shared/domain/oauth/opaque-secret';

const ISSUER = 'https://api.example.com';
const REDIRECT = 'https://app.example.com/cb';
const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
const SETTINGS = {
  issuer: ISSUER,
  consentUrl: 'https://dash.example.com/connect',
  requestTtlSeconds: 600,
  codeTtlSeconds: 60,
  grantTtlSeconds: 86_400,
};
const PUBLIC: OAuthClient = { clientId: 'dcr_app', clientName: 'App', redirectUris: [REDIRECT] };

/** A consent service over memory stores, with one known client; `approvals` says what recordApproval answers. */
function consent(client: OAuthClient = PUBLIC, approvals = true) {
  const store = new MemoryOAuthStateStore();
  const connections = new MemoryConnectionStore();
  const clients = { find: async () => client, recordApproval: async () => approvals } as unknown as ClientRegistry;
  return { service: new ConsentService(store, connections, clients, SETTINGS), store, connections };
}

const REQUEST = {
  client_id: 'dcr_app',
  redirect_uri: REDIRECT,
  response_type: 'code',
  code_challenge_method: 'S256',
  code_challenge: CHALLENGE,
  state: 'xyz',
};
const requestIdOf = (location: string) => new URL(location).searchParams.get('request')!;
const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { error?: string; status?: number }) => error,
  );

describe('ConsentService', () => {
  it('a valid request: parked, and the browser sent to the consent screen, which can describe it', async () => {
    const { service } = consent();
    const location = await service.authorize(REQUEST);
    expect(location.startsWith(`${SETTINGS.consentUrl}?request=authreq`)).to.equal(true);
    const view = await service.describe(requestIdOf(location));
    expect(view.client).to.deep.equal({
      client_id: 'dcr_app',
      client_name: 'App',
      redirect_scheme: 'https',
      redirect_host: 'app.example.com',
    });
  });

  it('a redirect URI not registered for the client: refused on the page, never redirected', async () => {
    const { service } = consent();
    expect((await refusal(service.authorize({ ...REQUEST, redirect_uri: 'https://evil.example/cb' })))?.error).to.equal('invalid_request');
  });

  it('a bad request from a public client nobody approved: shown as an error, not sent to its URI (no open redirect)', async () => {
    const { service } = consent();
    expect((await refusal(service.authorize({ ...REQUEST, response_type: 'token' })))?.error).to.equal('unsupported_response_type');
    expect((await refusal(service.authorize({ ...REQUEST, code_challenge_method: 'plain' })))?.error).to.equal('invalid_request');
  });

  it('a bad request from a confidential client: redirected to its URI with the error, the state and the issuer', async () => {
    const { service } = consent({ ...PUBLIC, secretSha256: 'x' });
    const url = new URL(await service.authorize({ ...REQUEST, resource: 'https://other.example' }));
    expect(Object.fromEntries(url.searchParams)).to.deep.include({ error: 'invalid_target', state: 'xyz', iss: ISSUER });
  });

  it('approval: a connection for the subject, a code for it in the redirect, and later errors may redirect', async () => {
    const { service, store, connections } = consent();
    const outcome = await service.answer(requestIdOf(await service.authorize(REQUEST)), { subject: ' person ' });
    const url = new URL(outcome.redirectTo);
    expect(url.origin + url.pathname).to.equal(REDIRECT);
    expect(url.searchParams.get('state')).to.equal('xyz');
    const grant = JSON.parse((await store.get('code', hashSecret(url.searchParams.get('code')!)))!);
    expect(grant).to.include({ connectionId: outcome.connectionId, subject: 'person', clientId: 'dcr_app', codeChallenge: CHALLENGE });
    expect((await connections.get(outcome.connectionId!))?.client).to.deep.equal({ id: 'dcr_app', name: 'App' });
    expect(new URL(await service.authorize({ ...REQUEST, response_type: 'token' })).searchParams.get('error')).to.equal(
      'unsupported_response_type',
    );
  });

  it('a denial: access_denied at the redirect URI; the request is used up (404 after)', async () => {
    const { service } = consent();
    const id = requestIdOf(await service.authorize(REQUEST));
    expect(new URL((await service.answer(id, { deny: true })).redirectTo).searchParams.get('error')).to.equal('access_denied');
    expect((await refusal(service.answer(id, { deny: true })))?.status).to.equal(404);
    expect((await refusal(service.describe(id)))?.status).to.equal(404);
  });

  it('a registration evicted while the request waited: access_denied, no connection made', async () => {
    const { service } = consent(PUBLIC, false);
    const outcome = await service.answer(requestIdOf(await service.authorize(REQUEST)), { subject: 'person' });
    expect(outcome.connectionId).to.equal(undefined);
    expect(new URL(outcome.redirectTo).searchParams.get('error_description')).to.equal('the app registration has expired; register again');
  });

  it('an invalid subject: 400, and the request is not used up', async () => {
    const { service } = consent();
    const id = requestIdOf(await service.authorize(REQUEST));
    expect((await refusal(service.answer(id, { subject: '  ' })))?.status).to.equal(400);
    expect((await service.describe(id)).request).to.equal(id);
  });

  it('sameResource: the public URL, with or without a trailing slash; anything else is another resource', () => {
    expect([sameResource(`${ISSUER}/`, ISSUER), sameResource(ISSUER, `${ISSUER}/`)]).to.deep.equal([true, true]);
    expect([sameResource('https://other.example', ISSUER), sameResource(42, ISSUER)]).to.deep.equal([false, false]);
  });
});
