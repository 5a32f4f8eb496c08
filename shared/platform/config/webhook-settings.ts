import { bool, makeValidator } from 'envalid';
import { isNonPublicHost } from '../net/address-policy';
import { type ConfigProblem, readSettings, type SettingValues, setting } from './settings-table';
import { intInRange, secureOrLoopbackUrl } from './validators';

/** The Standard Webhooks secret: a prefix and the base64 of 24 to 64 random bytes. */
const SECRET = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;

/** `WEBHOOK_URL`: an absolute https URL (http only on a loopback host), without credentials or fragment. */
const webhookUrl = makeValidator<string>((input) => secureOrLoopbackUrl(input, { allowQuery: true }).toString());

/** `WEBHOOK_SECRET`; the message never echoes the input. */
const webhookSecret = makeValidator<string>((input) => {
  const match = SECRET.exec(input);
  const bytes = match ? Buffer.from(match[1], 'base64').length : 0;
  if (bytes < 24 || bytes > 64) throw new Error('must be whsec_ followed by the base64 of 24 to 64 random bytes');
  return input;
});

/** The most event types `WEBHOOK_EVENT_TYPES` may name. */
export const MAX_FILTERED_TYPES = 100;
const EVENT_TYPE_NAME = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/**
 * `WEBHOOK_EVENT_TYPES`: comma-separated event type names (`job.succeeded,report.ready`). Their form is checked
 * here; whether each is a type the connector sends is checked against the catalogue when a process starts
 * (the operations' own types are known only there).
 */
const eventTypeList = makeValidator<readonly string[]>((input) => {
  const names = input.split(',').map((name) => name.trim());
  if (names.some((name) => name === '')) throw new Error('must be event type names separated by commas, none empty');
  const malformed = names.filter((name) => !EVENT_TYPE_NAME.test(name) || name.length > 64);
  if (malformed.length > 0) throw new Error(`must match ${EVENT_TYPE_NAME.source} (each at most 64 characters)`);
  if (names.length > MAX_FILTERED_TYPES) throw new Error(`must name at most ${MAX_FILTERED_TYPES} event types`);
  return [...new Set(names)];
});

/** The webhook variables and their rules (listed in docs/configuration.md), where each lands in {@link WebhookSettings}. */
export const WEBHOOK_SETTINGS = {
  /** `WEBHOOK_URL`: the receiver. */
  url: setting('WEBHOOK_URL', webhookUrl({ default: undefined })),
  /** `WEBHOOK_SECRET`: `whsec_` + base64, as the Standard Webhooks specification defines it. */
  secret: setting('WEBHOOK_SECRET', webhookSecret({ default: undefined })),
  /** `WEBHOOK_SECRET_PREVIOUS`: during a rotation, each delivery is signed with it too (same form). */
  previousSecret: setting('WEBHOOK_SECRET_PREVIOUS', webhookSecret({ default: undefined })),
  /** `WEBHOOK_ALLOW_PRIVATE`: the receiver may be on a private, loopback or link-local address. */
  allowPrivate: setting('WEBHOOK_ALLOW_PRIVATE', bool({ default: false })),
  /** `WEBHOOK_RETRY_BASE_MS`: the first retry's delay; later ones double up to an hour (see retry-schedule.ts). */
  retryBaseMs: setting('WEBHOOK_RETRY_BASE_MS', intInRange(10, 600_000)({ default: 5000 })),
  /** `WEBHOOK_CONCURRENCY`: deliveries one process sends at the same time. */
  concurrency: setting('WEBHOOK_CONCURRENCY', intInRange(1, 256)({ default: 16 })),
  /** `WEBHOOK_EVENT_TYPES`: only these event types are sent; unset: every type. */
  eventTypes: setting('WEBHOOK_EVENT_TYPES', eventTypeList({ default: undefined })),
};

/** Where and how events are sent; absent when `WEBHOOK_URL` and `WEBHOOK_SECRET` are both unset. */
export type WebhookSettings = SettingValues<typeof WEBHOOK_SETTINGS> & { readonly url: string; readonly secret: string };

/**
 * Reads the webhook variables. Problems are added to `problems` (names and our own reasons only), like the
 * rest of the configuration. Both `WEBHOOK_URL` and `WEBHOOK_SECRET`, or neither: one alone is an error, so a
 * half-configured feed never silently sends nothing (or sends unsigned). A receiver on a loopback, private or
 * link-local address literal (or `localhost`) needs `WEBHOOK_ALLOW_PRIVATE=true`; a name is checked each time
 * it is resolved, as the OAuth metadata fetcher does.
 */
export function loadWebhookSettings(env: NodeJS.ProcessEnv, problems: ConfigProblem[]): WebhookSettings | undefined {
  const before = problems.length;
  const { values } = readSettings(env, WEBHOOK_SETTINGS, problems);
  problems.push(...pairingProblems(env));
  const { url, secret, allowPrivate = false } = values;
  if (url !== undefined && !allowPrivate && isNonPublicHost(new URL(url).hostname)) {
    problems.push({
      name: 'WEBHOOK_URL',
      reason: 'must be on the public internet (set WEBHOOK_ALLOW_PRIVATE=true for a receiver on a private or loopback address)',
    });
  }
  if (problems.length > before || url === undefined || secret === undefined) return undefined;
  return { ...values, url, secret };
}

/** The variables set without their partner. Set (even to an invalid value) is what counts: an invalid one is already reported by its own name. */
function pairingProblems(env: NodeJS.ProcessEnv): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const urlSet = env.WEBHOOK_URL !== undefined;
  const secretSet = env.WEBHOOK_SECRET !== undefined;
  if (urlSet && !secretSet) problems.push({ name: 'WEBHOOK_SECRET', reason: 'is required when WEBHOOK_URL is set' });
  if (secretSet && !urlSet) problems.push({ name: 'WEBHOOK_URL', reason: 'is required when WEBHOOK_SECRET is set' });
  if (env.WEBHOOK_SECRET_PREVIOUS !== undefined && !secretSet) {
    problems.push({ name: 'WEBHOOK_SECRET_PREVIOUS', reason: 'is only meaningful beside WEBHOOK_SECRET' });
  }
  if (env.WEBHOOK_EVENT_TYPES !== undefined && !urlSet) {
    problems.push({ name: 'WEBHOOK_EVENT_TYPES', reason: 'is only meaningful beside WEBHOOK_URL' });
  }
  return problems;
}
