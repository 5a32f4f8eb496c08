import { makeValidator } from 'envalid';
import { type ConfigProblem, readSettings, type SettingValues, setting } from './settings-table';
import { consentUrl, intInRange } from './validators';

/** A client registered ahead of time (GPT Actions): only the SHA-256 of its secret is kept. */
export interface PreRegisteredClient {
  client_id: string;
  client_name: string;
  redirect_uris: string[];
  /** base64url SHA-256 of the secret, as `npm run oauth:client` prints it. */
  secret_sha256: string;
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
  parsed.forEach((client, index) => {
    const broken = brokenClientRule(client);
    if (broken) throw new Error(`must list clients whose ${broken} (client ${index + 1})`);
  });
  return parsed as PreRegisteredClient[];
});

/** The first rule a pre-registered client breaks, named with its field and pattern; undefined when it keeps them all. */
function brokenClientRule(client: unknown): string | undefined {
  if (!client || typeof client !== 'object') return 'entries are objects';
  const { client_id, client_name, secret_sha256, redirect_uris } = client as Record<string, unknown>;
  if (typeof client_id !== 'string' || !CLIENT_ID.test(client_id)) return `client_id matches ${CLIENT_ID.source}`;
  if (typeof client_name !== 'string') return 'client_name is a string';
  if (typeof secret_sha256 !== 'string' || !SECRET_SHA256.test(secret_sha256)) return `secret_sha256 matches ${SECRET_SHA256.source}`;
  const https = (uri: unknown) => typeof uri === 'string' && /^https:\/\//.test(uri);
  if (!Array.isArray(redirect_uris) || redirect_uris.length === 0 || !redirect_uris.every(https)) {
    return 'redirect_uris are https:// URLs, at least one';
  }
  return undefined;
}

/** The OAuth variables and their rules (listed in docs/configuration.md), where each lands in {@link OAuthSettings}. */
export const OAUTH_SETTINGS = {
  /** Where `/oauth/authorize` sends the browser, with `?request=<id>`: `CONSENT_URL`, or `<DASHBOARD_URL>/connect`. */
  consentUrl: setting('CONSENT_URL', consentUrl({ default: undefined })),
  /** `OAUTH_ACCESS_TOKEN_TTL_SECONDS`: lifetime of the access tokens `/oauth/token` issues. */
  accessTokenTtlSeconds: setting('OAUTH_ACCESS_TOKEN_TTL_SECONDS', intInRange(60, 86_400)({ default: 3600 })),
  /** `OAUTH_REQUEST_TTL_SECONDS`: lifetime of a pending consent request. */
  requestTtlSeconds: setting('OAUTH_REQUEST_TTL_SECONDS', intInRange(1, 3600)({ default: 600 })),
  /** `OAUTH_CODE_TTL_SECONDS`: lifetime of an authorization code. */
  codeTtlSeconds: setting('OAUTH_CODE_TTL_SECONDS', intInRange(1, 600)({ default: 60 })),
  /** Cap on dynamically registered clients, so registration cannot fill the store. */
  maxRegisteredClients: setting('OAUTH_MAX_REGISTERED_CLIENTS', intInRange(1, 10_000_000)({ default: 10_000 })),
  /** How long a dynamically registered client lives until a person approves it. */
  unusedClientTtlSeconds: setting('OAUTH_UNUSED_CLIENT_TTL_SECONDS', intInRange(1, 30 * 86_400)({ default: 86_400 })),
  /** `OAUTH_CLIENTS`: the pre-registered clients. */
  clients: setting('OAUTH_CLIENTS', preRegisteredClients({ default: [] })),
};

/** The OAuth settings, validated with the rest of the configuration. */
export interface OAuthSettings extends Required<SettingValues<typeof OAUTH_SETTINGS>> {
  /** True when `CONSENT_URL` is set; `npm run dev`'s consent page then stays off (see `dev-consent.ts`). */
  readonly consentUrlSet: boolean;
}

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
export function loadOAuthSettings(env: NodeJS.ProcessEnv, base: { dashboardUrl?: string }, problems: ConfigProblem[]): OAuthSettings {
  const known = problems.length;
  const { values } = readSettings(env, OAUTH_SETTINGS, problems);
  if (problems.length > known) return UNUSABLE;
  return {
    ...values,
    consentUrl: values.consentUrl ?? `${(base.dashboardUrl ?? '').replace(/\/+$/, '')}/connect`,
    consentUrlSet: values.consentUrl !== undefined,
  };
}
