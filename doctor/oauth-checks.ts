import { createHash, randomBytes } from 'node:crypto';
import { type CheckResult, fail, pass, warn } from './check-result';
import type { DoctorContext } from './context';
import { protectedResourceUrls } from './mcp-checks';
import { describeError, type Fetched, normalizeUrl } from './target';

/** Where the doctor's throwaway OAuth client says it would receive codes; nothing ever listens there. */
export const DOCTOR_REDIRECT_URI = 'https://connector-doctor.invalid/callback';

const ENDPOINTS = ['authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'revocation_endpoint'];

/**
 * OAuth as an MCP app discovers it: the protected-resource metadata names the connector as its own
 * authorization server, both documents agree on the issuer and resource, every endpoint sits on the
 * public origin (GPT Actions requires it too), PKCE S256 is offered and the authorize endpoint refuses
 * a request without PKCE.
 */
export async function oauthChecks(ctx: DoctorContext): Promise<CheckResult[]> {
  const { target } = ctx;
  const resourceUrl = ctx.resourceMetadataUrl ?? protectedResourceUrls(target.publicUrl)[0]!;
  const resource = await getJson(ctx, resourceUrl);
  if ('error' in resource) return [fail('oauth.protected-resource', resource.error)];
  const prm = resource.json;
  const servers: unknown[] = Array.isArray(prm.authorization_servers) ? prm.authorization_servers : [];
  if (typeof prm.resource !== 'string' || servers.length === 0 || typeof servers[0] !== 'string') {
    return [fail('oauth.protected-resource', `${resourceUrl} lacks resource or authorization_servers`)];
  }
  const results = [
    pass('oauth.protected-resource', `${resourceUrl} names resource ${prm.resource} and authorization server ${servers[0]}`),
  ];

  const issuer = servers[0] as string;
  const server = await authorizationServerMetadata(ctx, issuer);
  if ('error' in server) return [...results, fail('oauth.authorization-server', server.error)];
  const as = server.json;
  results.push(pass('oauth.authorization-server', `${server.url} answered with issuer ${as.issuer}`));
  const disagreements = metadataDisagreements(target.publicUrl, prm, issuer, as);
  results.push(
    disagreements.length === 0
      ? pass('oauth.metadata-agree', `issuer, resource and endpoints all sit on ${target.publicUrl}`)
      : fail('oauth.metadata-agree', disagreements.join('; ')),
  );
  results.push(pkceS256(as));
  if (typeof as.authorization_endpoint === 'string' && sameOrigin(as.authorization_endpoint, new URL(target.publicUrl).origin)) {
    results.push(await authorizeRequiresPkce(ctx, as));
  }
  return results;
}

/**
 * Where the two metadata documents disagree with each other or with the public URL: the resource and the
 * issuer must be it, and every endpoint must sit on its origin.
 */
function metadataDisagreements(publicUrl: string, prm: Record<string, any>, issuer: string, as: Record<string, any>): string[] {
  const disagreements: string[] = [];
  if (normalizeUrl(prm.resource) !== publicUrl) disagreements.push(`resource is ${prm.resource}, not the public URL ${publicUrl}`);
  if (as.issuer !== issuer) disagreements.push(`issuer is ${as.issuer}, but the protected resource names ${issuer}`);
  if (normalizeUrl(String(as.issuer)) !== publicUrl) disagreements.push(`issuer ${as.issuer} is not the public URL ${publicUrl}`);
  const origin = new URL(publicUrl).origin;
  for (const name of ENDPOINTS) {
    const value = as[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' || !sameOrigin(value, origin)) disagreements.push(`${name} ${String(value)} is not under ${origin}`);
  }
  if (typeof as.authorization_endpoint !== 'string' || typeof as.token_endpoint !== 'string')
    disagreements.push('authorization_endpoint or token_endpoint is missing');
  return disagreements;
}

function pkceS256(as: Record<string, any>): CheckResult {
  const methods: unknown = as.code_challenge_methods_supported;
  return Array.isArray(methods) && methods.includes('S256')
    ? pass('oauth.pkce-s256', 'code_challenge_methods_supported offers S256')
    : fail('oauth.pkce-s256', `code_challenge_methods_supported is ${JSON.stringify(methods ?? null)}; must include S256`);
}

function sameOrigin(url: string, origin: string): boolean {
  try {
    return new URL(url).origin === origin;
  } catch {
    return false;
  }
}

async function getJson(ctx: DoctorContext, publishedUrl: string): Promise<{ url: string; json: Record<string, any> } | { error: string }> {
  try {
    const response = await ctx.target.requestUrl(ctx.target.reachable(publishedUrl));
    if (response.status !== 200 || !response.json || typeof response.json !== 'object') {
      return { error: `GET ${publishedUrl} answered ${response.status}; expected 200 with JSON metadata` };
    }
    return { url: publishedUrl, json: response.json };
  } catch (error) {
    return { error: `GET ${publishedUrl} failed: ${describeError(error)}` };
  }
}

/** RFC 8414: the well-known path goes between the issuer's origin and its path; the contract's form is tried too. */
async function authorizationServerMetadata(
  ctx: DoctorContext,
  issuer: string,
): Promise<{ url: string; json: Record<string, any> } | { error: string }> {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return { error: `authorization server ${issuer} is not a URL` };
  }
  const path = url.pathname.replace(/\/+$/, '');
  const candidates = [
    ...new Set([
      `${url.origin}/.well-known/oauth-authorization-server${path}`,
      `${normalizeUrl(issuer)}/.well-known/oauth-authorization-server`,
    ]),
  ];
  let last: { error: string } = { error: 'no metadata' };
  for (const candidate of candidates) {
    const found = await getJson(ctx, candidate);
    if (!('error' in found)) return found;
    last = found;
  }
  return last;
}

/**
 * Registers a throwaway public client (Dynamic Client Registration), then asks to authorize it without
 * a code_challenge: the connector must refuse. The same request with PKCE is sent as a control, so a
 * refusal for some other reason (the client, the redirect URI) is not mistaken for PKCE enforcement.
 */
async function authorizeRequiresPkce(ctx: DoctorContext, as: Record<string, any>): Promise<CheckResult> {
  const id = 'oauth.authorize-requires-pkce';
  if (typeof as.registration_endpoint !== 'string' || !sameOrigin(as.registration_endpoint, new URL(ctx.target.publicUrl).origin)) {
    return warn(id, 'no registration_endpoint on the public origin: cannot register a client to try the authorize endpoint with');
  }
  try {
    const registered = await ctx.target.requestUrl(ctx.target.reachable(as.registration_endpoint), {
      json: {
        client_name: 'connector-doctor',
        redirect_uris: [DOCTOR_REDIRECT_URI],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    });
    const clientId = registered.json?.client_id;
    if (![200, 201].includes(registered.status) || typeof clientId !== 'string') {
      return fail(id, `client registration answered ${registered.status}; expected 201 with a client_id`);
    }
    const authorize = (extra: Record<string, string>) => {
      const query = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: DOCTOR_REDIRECT_URI,
        state: randomBytes(8).toString('hex'),
        resource: ctx.target.publicUrl,
        ...extra,
      });
      return ctx.target.requestUrl(`${ctx.target.reachable(as.authorization_endpoint)}?${query}`);
    };
    const without = await authorize({});
    if (!refused(without))
      return fail(
        id,
        `GET ${as.authorization_endpoint} without code_challenge answered ${without.status} and went ahead; PKCE must be required`,
      );
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const control = await authorize({ code_challenge: challenge, code_challenge_method: 'S256' });
    if (refused(control))
      return warn(
        id,
        `the authorize endpoint refused the request with PKCE too (${control.status}), so PKCE enforcement could not be told apart`,
      );
    return pass(id, 'the authorize endpoint refuses a request without PKCE and accepts one with S256');
  } catch (error) {
    return fail(id, `authorize check failed: ${describeError(error)}`);
  }
}

/** A refusal: an error status, or a redirect back to the client carrying `error`. */
function refused(response: Fetched): boolean {
  if (response.status >= 400) return true;
  if (response.status < 300 || response.status >= 400) return false;
  const location = response.headers.get('location');
  if (!location) return false;
  const url = new URL(location, response.url);
  return `${url.origin}${url.pathname}` === DOCTOR_REDIRECT_URI && url.searchParams.has('error');
}
