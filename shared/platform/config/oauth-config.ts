import { cleanEnv, makeValidator } from 'envalid';
import { consentUrl, intInRange } from '../config/validators';

/** A client registered ahead of time (GPT Actions): only the SHA-256 of its secret is kept. */
export interface PreRegisteredClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  /** base64url SHA-256 of the secret, as `npm run oauth:client` prints it. */
  secret_sha256: string;
}

/** The OAuth settings, validated with the rest of the configuration. */
export interface OAuthSettings {
  /** Where `/oauth/authorize` sends the browser, with `?request=<id>`: `CONSENT_URL`, or `<DASHBOARD_URL>/connect`. */
  readonly consentUrl: string;
  /** True when `CONSENT_URL` is set; `npm run dev`'s consent page then stays off (see `dev-consent.ts`). */
  readonly consentUrlSet: boolean;
  readonly accessTokenTtlSeconds: number;
  readonly requestTtlSeconds: number;
  readonly codeTtlSeconds: number;
  /** Cap on dynamically registered clients, so registration cannot fill the store. */
  readonly maxRegisteredClients: number;
  /** How long a dynamically registered client lives until a person approves it. */
  readonly unusedClientTtlSeconds: number;
  readonly clients: readonly PreRegisteredClient[];
}

/** The dev consent page's path; see `api/routes/dev-consent-routes.ts`. */
export const DEV_CONSENT_PATH = '/oauth/dev-consent';

const CLIENT_ID = /^[A-Za-z0-9_-]{8,64}$/;
const SECRET_SHA256 = /^[A-Za-z0-9_-]{43}$/;

/** `OAUTH_CLIENTS`: a JSON array of pre-registered clients; the message never echoes the input. */
const preRegisteredClients = makeValidator<PreRegisteredClient[]>((input) => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    throw new Error('must be a JSON array of clients');
  }
  if (!Array.isArray(parsed)) throw new Error('must be a JSON array of clients');
  for (const client of parsed) {
    const ok =
      client &&
      typeof client === 'object' &&
      CLIENT_ID.test(client.client_id) &&
      typeof client.client_name === 'string' &&
      SECRET_SHA256.test(client.secret_sha256) &&
      Array.isArray(client.redirect_uris) &&
      client.redirect_uris.length > 0 &&
      client.redirect_uris.every((uri: unknown) => typeof uri === 'string' && /^https:\/\//.test(uri));
    if (!ok) throw new Error('must list clients with client_id, client_name, https redirect_uris and secret_sha256');
  }
  return parsed as PreRegisteredClient[];
});

/** The OAuth variables and their rules (listed in docs/configuration.md). */
export const OAUTH_VARIABLES = {
  CONSENT_URL: consentUrl({ default: undefined }),
  OAUTH_ACCESS_TOKEN_TTL_SECONDS: intInRange(60, 86_400)({ default: 3600 }),
  OAUTH_REQUEST_TTL_SECONDS: intInRange(1, 3600)({ default: 600 }),
  OAUTH_CODE_TTL_SECONDS: intInRange(1, 600)({ default: 60 }),
  OAUTH_MAX_REGISTERED_CLIENTS: intInRange(1, 10_000_000)({ default: 10_000 }),
  OAUTH_UNUSED_CLIENT_TTL_SECONDS: intInRange(1, 30 * 86_400)({ default: 86_400 }),
  OAUTH_CLIENTS: preRegisteredClients({ default: [] }),
};

/** Returned when an OAuth variable is invalid: never used, since the configuration is then refused. */
const UNUSABLE: OAuthSettings = {
  consentUrl: '',
  consentUrlSet: false,
  accessTokenTtlSeconds: 0,
  requestTtlSeconds: 0,
  codeTtlSeconds: 0,
  maxRegisteredClients: 0,
  unusedClientTtlSeconds: 0,
  clients: [],
};

/**
 * Reads the OAuth variables. Problems are added to `problems` (names and our own reasons only), like the
 * rest of the configuration.
 */
export function loadOAuthSettings(
  env: NodeJS.ProcessEnv,
  base: { dashboardUrl?: string },
  problems: Array<{ name: string; reason: string }>,
): OAuthSettings {
  const known = problems.length;
  const clean = cleanEnv(env, OAUTH_VARIABLES, {
    reporter: ({ errors }) => {
      for (const [name, error] of Object.entries(errors)) {
        const message = error?.message ?? '';
        problems.push({ name, reason: /^(must|is) /.test(message) ? message : 'is invalid' });
      }
    },
  });
  // envalid throws when a variable that failed is read; the caller refuses the configuration anyway.
  if (problems.length > known) return UNUSABLE;
  return {
    consentUrl: clean.CONSENT_URL ?? `${(base.dashboardUrl ?? '').replace(/\/+$/, '')}/connect`,
    consentUrlSet: clean.CONSENT_URL !== undefined,
    accessTokenTtlSeconds: clean.OAUTH_ACCESS_TOKEN_TTL_SECONDS,
    requestTtlSeconds: clean.OAUTH_REQUEST_TTL_SECONDS,
    codeTtlSeconds: clean.OAUTH_CODE_TTL_SECONDS,
    maxRegisteredClients: clean.OAUTH_MAX_REGISTERED_CLIENTS,
    unusedClientTtlSeconds: clean.OAUTH_UNUSED_CLIENT_TTL_SECONDS,
    clients: clean.OAUTH_CLIENTS,
  };
}
