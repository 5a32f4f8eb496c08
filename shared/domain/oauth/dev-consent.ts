import type { Config } from '../../platform/config/config';
import { isLoopbackListener } from '../../platform/config/listen-host';
import { DEV_CONSENT_PATH } from '../../platform/config/oauth-config';
import { LOOPBACK_HOSTS } from '../../platform/config/validators';

/** What decides whether the dev consent page may be served. */
export type DevConsentInputs = Pick<Config, 'publicUrl' | 'host'> & { oauth: Pick<Config['oauth'], 'consentUrlSet'> };

/**
 * Whether `npm run dev`'s consent page may be served, once that entry asks for it: only when nobody but the
 * person at this machine can reach it. `PUBLIC_URL` must be loopback, the listener must be bound to loopback
 * (the default for such a `PUBLIC_URL`; a `HOST` that opens it to the network turns the page off) and
 * `CONSENT_URL` unset. The page approves a token for any subject typed in, so on a shared network it would
 * hand out access to anyone who can reach the port.
 */
export function devConsentAllowed(config: DevConsentInputs): boolean {
  return !config.oauth.consentUrlSet && LOOPBACK_HOSTS.has(new URL(config.publicUrl).hostname) && isLoopbackListener(config.host);
}

/** The configuration with the dev consent page as the consent screen `/oauth/authorize` sends the browser to. */
export function withDevConsent(config: Config): Config {
  return { ...config, oauth: { ...config.oauth, consentUrl: `${config.publicUrl}${DEV_CONSENT_PATH}` } };
}
