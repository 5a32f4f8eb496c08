import { makeValidator } from 'envalid';

/** Hosts for which a plain-http PUBLIC_URL is allowed: exact matches only, so `localhost.evil.com` is refused. */
export const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

/** An absolute URL without credentials, query or fragment (`allowQuery` lets a query through). */
function parseAbsoluteUrl(input: string, { allowQuery = false }: { allowQuery?: boolean } = {}): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new Error('must be an absolute URL');
  }
  if (url.username || url.password) throw new Error('must not carry credentials');
  if (url.hash || (url.search && !allowQuery))
    throw new Error(allowQuery ? 'must not have a fragment' : 'must not have a query or fragment');
  return url;
}

/**
 * An absolute URL ({@link parseAbsoluteUrl}) that uses https, or http only on an exact loopback host: the one
 * rule of every URL the connector sends a browser, a client or an event to.
 */
export function secureOrLoopbackUrl(input: string, options: { allowQuery?: boolean } = {}): URL {
  const url = parseAbsoluteUrl(input, options);
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) return url;
  throw new Error('must use https (http is allowed only for localhost, 127.0.0.1 or [::1])');
}

/** The base URL without a trailing slash, so `${base}/openapi.json` never doubles it. */
function normalise(url: URL): string {
  return url.toString().replace(/\/+$/, '');
}

/** `PUBLIC_URL`: https, or http only on an exact loopback host. */
export const publicUrl = makeValidator<string>((input) => normalise(secureOrLoopbackUrl(input)));

/**
 * `CONSENT_URL`: https, or http only on an exact loopback host, so a dashboard running on the developer's own
 * machine (examples/dashboard) can be the consent screen of a local connector. The browser is sent there; a
 * loopback address only ever reaches the person's own machine.
 */
export const consentUrl = makeValidator<string>((input) => {
  secureOrLoopbackUrl(input);
  return input.trim();
});

/** `DASHBOARD_URL`: an absolute https URL. */
export const httpsUrl = makeValidator<string>((input) => {
  const url = parseAbsoluteUrl(input);
  if (url.protocol !== 'https:') throw new Error('must use https');
  return input.trim();
});

/** A string of at least `min` characters. */
export const secretOfAtLeast = (min: number) =>
  makeValidator<string>((input) => {
    if (typeof input !== 'string' || input.length < min) throw new Error(`must be at least ${min} characters`);
    return input;
  });

/**
 * A shared secret a person pastes on both sides (the dashboard's): at least `min` characters, and not blank or one
 * character repeated, which pass a length rule but guess in a few tries.
 */
export const sharedSecretOfAtLeast = (min: number) =>
  makeValidator<string>((input) => {
    if (typeof input !== 'string' || input.length < min) throw new Error(`must be at least ${min} characters`);
    if (input.trim() === '' || new Set(input).size === 1) throw new Error(`must not be blank or one character repeated`);
    return input;
  });

/**
 * An integer from `min` to `max`, both included. The refusal names the rule broken: a value that is not a whole
 * number (`30s`, `1.5`) `must be a whole number between MIN and MAX`; a whole number outside the range, negative
 * ones included, `must be between MIN and MAX`.
 */
export const intInRange = (min: number, max: number) =>
  makeValidator<number>((input) => {
    const text = String(input).trim();
    if (!/^-?\d+$/.test(text)) throw new Error(`must be a whole number between ${min} and ${max}`);
    const value = Number(text) + 0; // -0 is 0
    if (value < min || value > max) throw new Error(`must be between ${min} and ${max}`);
    return value;
  });

/** The refusal of a pattern rule, naming the pattern: `must match the pattern ^[a-z]+$`. */
export function mustMatch(pattern: RegExp): string {
  return `must match the pattern ${pattern.source}`;
}

/** A string that matches `pattern` (anchor it); refused with the pattern named ({@link mustMatch}), never the value. */
export const matching = (pattern: RegExp) =>
  makeValidator<string>((input) => {
    if (typeof input !== 'string' || !pattern.test(input)) throw new Error(mustMatch(pattern));
    return input;
  });

/** A Redis URL (`redis://` or `rediss://`). */
export const redisUrl = makeValidator<string>((input) => {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new Error('must be a redis:// or rediss:// URL');
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') throw new Error('must be a redis:// or rediss:// URL');
  return input;
});

/** A comma-separated list of web origins (`scheme://host[:port]`, nothing more), e.g. `https://claude.ai`. */
export const originList = makeValidator<string[]>((input) => {
  const items = String(input)
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  return items.map((item) => {
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new Error('must be a comma-separated list of origins such as https://app.example.com');
    }
    if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.origin !== item.replace(/\/$/, '')) {
      throw new Error('must be a comma-separated list of origins such as https://app.example.com');
    }
    return url.origin;
  });
});
