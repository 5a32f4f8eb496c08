import { makeValidator, str } from 'envalid';
import { type ConfigProblem, readSettings, type SettingValues, setting } from './settings-table';
import { matching } from './validators';

/** `X402`: `off` (default) or `on`. */
export const X402_SWITCH = ['off', 'on'] as const;

/** An EVM address: `0x` and 40 hex digits (any case; compared in lower case). */
const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;
/** A CAIP-2 chain id of an EVM chain (`eip155:<chain id>`): the `exact` scheme over EIP-3009 is what is taken. */
const CAIP2 = /^eip155:[1-9][0-9]{0,15}$/;
/** A positive whole number of token units, at most 30 digits (one credit's price in the asset's smallest unit). */
const ATOMIC_AMOUNT = /^[1-9][0-9]{0,29}$/;
/** An EIP-712 domain's name or version: printable, bounded. */
const DOMAIN_TEXT = /^[\x20-\x7e]{1,64}$/;
/** A bearer token for the facilitator: printable, no space. */
const FACILITATOR_TOKEN = /^[\x21-\x7e]{8,4096}$/;

/**
 * `X402_FACILITATOR_URL`: an absolute http(s) URL without credentials, query or fragment (the client appends
 * `/verify` and `/settle` to it). A facilitator's key goes in `X402_FACILITATOR_TOKEN`, a Secret in the chart.
 */
const facilitatorUrl = makeValidator<string>((input) => {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new Error('must be an absolute http or https URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('must be an absolute http or https URL');
  if (url.username || url.password || url.search || url.hash) {
    throw new Error('must have no credentials, query or fragment (put a key in X402_FACILITATOR_TOKEN)');
  }
  return url.toString().replace(/\/$/, '');
});

/** The x402 variables and their rules (listed in docs/configuration.md); all but the token are required when `X402=on`. */
export const X402_SETTINGS = {
  /** `X402`: `on` lets agents pay paid operations with x402; `off` (default) publishes and accepts nothing of it. */
  enabled: setting('X402', str<(typeof X402_SWITCH)[number]>({ choices: X402_SWITCH, default: 'off' })),
  /** `X402_PAY_TO`: the seller's receiving address. */
  payTo: setting('X402_PAY_TO', matching(EVM_ADDRESS)({ default: undefined })),
  /** `X402_NETWORK`: the chain, as CAIP-2 (`eip155:8453` for Base). */
  network: setting('X402_NETWORK', matching(CAIP2)({ default: undefined })),
  /** `X402_ASSET`: the token's address (an EIP-3009 token such as USDC). */
  asset: setting('X402_ASSET', matching(EVM_ADDRESS)({ default: undefined })),
  /** `X402_ASSET_NAME`: the token's EIP-712 domain name (`USD Coin`). */
  assetName: setting('X402_ASSET_NAME', matching(DOMAIN_TEXT)({ default: undefined })),
  /** `X402_ASSET_VERSION`: the token's EIP-712 domain version (`2`). */
  assetVersion: setting('X402_ASSET_VERSION', matching(DOMAIN_TEXT)({ default: undefined })),
  /** `X402_ATOMIC_PER_CREDIT`: token units one credit costs (10000 = 0.01 of a 6-decimal token). */
  atomicPerCredit: setting('X402_ATOMIC_PER_CREDIT', matching(ATOMIC_AMOUNT)({ default: undefined })),
  /** `X402_FACILITATOR_URL`: the facilitator that verifies and settles payments. */
  facilitatorUrl: setting('X402_FACILITATOR_URL', facilitatorUrl({ default: undefined })),
  /** `X402_FACILITATOR_TOKEN`: optional bearer token sent to the facilitator. */
  facilitatorToken: setting('X402_FACILITATOR_TOKEN', matching(FACILITATOR_TOKEN)({ default: undefined })),
};

type Read = SettingValues<typeof X402_SETTINGS>;

/** How agents pay with x402, as read when `X402=on`: every required field set. */
export type X402Settings = Required<Omit<Read, 'enabled' | 'facilitatorToken'>> & Pick<Read, 'facilitatorToken'>;

/** The variables `X402=on` needs, by the field they fill. */
const REQUIRED = ['payTo', 'network', 'asset', 'assetName', 'assetVersion', 'atomicPerCredit', 'facilitatorUrl'] as const;

/**
 * Reads the x402 variables; undefined when `X402` is `off`. With `on`, each required variable that is unset is
 * a problem of its own (`is required when X402=on`), reported with the rest of the configuration.
 */
export function loadX402Settings(env: NodeJS.ProcessEnv, problems: ConfigProblem[]): X402Settings | undefined {
  const { values, failed } = readSettings(env, X402_SETTINGS, problems);
  if (values.enabled !== 'on') return undefined;
  let complete = true;
  for (const field of REQUIRED) {
    const variable = X402_SETTINGS[field].variable;
    if (values[field] !== undefined || failed(variable)) continue;
    problems.push({ name: variable, reason: 'is required when X402=on' });
    complete = false;
  }
  if (!complete || REQUIRED.some((field) => values[field] === undefined)) return undefined;
  const { enabled: _on, ...settings } = values;
  return settings as X402Settings;
}
