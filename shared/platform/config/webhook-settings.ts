import { bool, cleanEnv, makeValidator } from 'envalid';
import { intInRange, secureOrLoopbackUrl } from './validators';
import { isNonPublicHost } from '../net/address-policy';

/** Where and how events are sent; absent when `WEBHOOK_URL` and `WEBHOOK_SECRET` are both unset. */
export interface WebhookSettings {
  /** `WEBHOOK_URL`: the receiver. */
  readonly url: string;
  /** `WEBHOOK_SECRET`: `whsec_` + base64, as the Standard Webhooks specification defines it. */
  readonly secret: string;
  /** `WEBHOOK_SECRET_PREVIOUS`: during a rotation, each delivery is signed with it too (same form). */
  readonly previousSecret?: string;
  /** `WEBHOOK_ALLOW_PRIVATE`: the receiver may be on a private, loopback or link-local address. */
  readonly allowPrivate: boolean;
  /** `WEBHOOK_RETRY_BASE_MS`: the first retry's delay; later ones double up to an hour (see retry-schedule.ts). */
  readonly retryBaseMs: number;
  /** `WEBHOOK_CONCURRENCY`: deliveries one process sends at the same time. */
  readonly concurrency: number;
}

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

/** The webhook variables and their rules (listed in docs/configuration.md). */
export const WEBHOOK_VARIABLES = {
  WEBHOOK_URL: webhookUrl({ default: undefined }),
  WEBHOOK_SECRET: webhookSecret({ default: undefined }),
  WEBHOOK_SECRET_PREVIOUS: webhookSecret({ default: undefined }),
  WEBHOOK_ALLOW_PRIVATE: bool({ default: false }),
  WEBHOOK_RETRY_BASE_MS: intInRange(10, 600_000)({ default: 5000 }),
  WEBHOOK_CONCURRENCY: intInRange(1, 256)({ default: 16 }),
};

/**
 * Reads the webhook variables. Problems are added to `problems` (names and our own reasons only), like the
 * rest of the configuration. Both `WEBHOOK_URL` and `WEBHOOK_SECRET`, or neither: one alone is an error, so a
 * half-configured feed never silently sends nothing (or sends unsigned). A receiver on a loopback, private or
 * link-local address literal (or `localhost`) needs `WEBHOOK_ALLOW_PRIVATE=true`; a name is checked each time
 * it is resolved, as the OAuth metadata fetcher does.
 */
export function loadWebhookSettings(
  env: NodeJS.ProcessEnv,
  problems: Array<{ name: string; reason: string }>,
): WebhookSettings | undefined {
  const before = problems.length;
  const clean = cleanEnv(env, WEBHOOK_VARIABLES, {
    reporter: ({ errors }) => {
      for (const [name, error] of Object.entries(errors)) {
        const message = error?.message ?? '';
        problems.push({ name, reason: /^(must|is) /.test(message) ? message : 'is invalid' });
      }
    },
  });
  const failed = (name: string) => problems.slice(before).some((p) => p.name === name);
  // envalid refuses to read a variable that failed validation, hence the checks before each read.
  const url = failed('WEBHOOK_URL') ? undefined : clean.WEBHOOK_URL;
  const secret = failed('WEBHOOK_SECRET') ? undefined : clean.WEBHOOK_SECRET;
  // Set (even to an invalid value) is what counts: an invalid one is already reported by its own name.
  const urlSet = env.WEBHOOK_URL !== undefined;
  const secretSet = env.WEBHOOK_SECRET !== undefined;
  if (urlSet && !secretSet) problems.push({ name: 'WEBHOOK_SECRET', reason: 'is required when WEBHOOK_URL is set' });
  if (secretSet && !urlSet) problems.push({ name: 'WEBHOOK_URL', reason: 'is required when WEBHOOK_SECRET is set' });
  if (env.WEBHOOK_SECRET_PREVIOUS !== undefined && !secretSet) {
    problems.push({ name: 'WEBHOOK_SECRET_PREVIOUS', reason: 'is only meaningful beside WEBHOOK_SECRET' });
  }
  const previousSecret = failed('WEBHOOK_SECRET_PREVIOUS') ? undefined : clean.WEBHOOK_SECRET_PREVIOUS;
  const allowPrivate = failed('WEBHOOK_ALLOW_PRIVATE') ? false : clean.WEBHOOK_ALLOW_PRIVATE;
  if (url !== undefined && !allowPrivate && isNonPublicHost(new URL(url).hostname)) {
    problems.push({
      name: 'WEBHOOK_URL',
      reason: 'must be on the public internet (set WEBHOOK_ALLOW_PRIVATE=true for a receiver on a private or loopback address)',
    });
  }
  if (problems.length > before || url === undefined || secret === undefined) return undefined;
  return {
    url,
    secret,
    ...(previousSecret === undefined ? {} : { previousSecret }),
    allowPrivate,
    retryBaseMs: clean.WEBHOOK_RETRY_BASE_MS,
    concurrency: clean.WEBHOOK_CONCURRENCY,
  };
}
