import { makeValidator, str } from 'envalid';
import { type ConfigProblem, readSettings, type SettingValues, setting } from './settings-table';
import { intInRange, secureOrLoopbackUrl } from './validators';

/** `metered`: charges are counted (today's behaviour); `prepaid`: each subject has a balance a paid job needs. */
export const BILLING_MODES = ['metered', 'prepaid'] as const;
export type BillingMode = (typeof BILLING_MODES)[number];

/** Whether a paid MCP tool call asks the person first: `elicit` when the client can be asked, `required` always, `off` never. */
export const SPEND_CONFIRMATIONS = ['elicit', 'required', 'off'] as const;
export type SpendConfirmation = (typeof SPEND_CONFIRMATIONS)[number];

/** The largest credit figure a setting takes, the same bound as `DAILY_CREDIT_LIMIT`'s. */
export const MAX_CREDITS = 1_000_000_000;

/**
 * `TOP_UP_URL`: where a person short of credits is sent to buy more. https, or http only on a loopback host
 * (a dashboard on the developer's machine), like every URL the connector sends a browser to; a query is kept
 * (a checkout page may take one), a fragment or credentials are refused.
 */
const topUpUrl = makeValidator<string>((input) => secureOrLoopbackUrl(input, { allowQuery: true }).toString());

/** The credit-account variables and their rules (listed in docs/configuration.md), where each lands in {@link BillingSettings}. */
export const BILLING_SETTINGS = {
  /** `BILLING_MODE`: `metered` (default) or `prepaid`. */
  mode: setting('BILLING_MODE', str<BillingMode>({ choices: BILLING_MODES, default: 'metered' })),
  /** `TOP_UP_URL`: where a person buys credits; `DASHBOARD_URL` when unset. */
  topUpUrl: setting('TOP_UP_URL', topUpUrl({ default: undefined })),
  /** `CREDITS_LOW_THRESHOLD`: a `credits.low` event each time a balance falls below it; unset: none. */
  lowThreshold: setting('CREDITS_LOW_THRESHOLD', intInRange(0, MAX_CREDITS)({ default: undefined })),
  /** `HOLD_ORPHAN_SECONDS`: a hold whose job was never enqueued is released this long after its claim. */
  holdOrphanSeconds: setting('HOLD_ORPHAN_SECONDS', intInRange(1, 86_400)({ default: 120 })),
  /** `SPEND_CONFIRMATION`: `elicit` (default), `required` or `off`. */
  spendConfirmation: setting('SPEND_CONFIRMATION', str<SpendConfirmation>({ choices: SPEND_CONFIRMATIONS, default: 'elicit' })),
  /** `SPEND_CONFIRMATION_ABOVE`: a paid tool call priced at least this asks the person first. */
  spendConfirmationAbove: setting('SPEND_CONFIRMATION_ABOVE', intInRange(0, MAX_CREDITS)({ default: 1 })),
};

/** How credits are billed, as read: every field set, `topUpUrl` defaulted to the dashboard's address. */
export type BillingSettings = Required<Omit<SettingValues<typeof BILLING_SETTINGS>, 'lowThreshold'>> &
  Pick<SettingValues<typeof BILLING_SETTINGS>, 'lowThreshold'>;

/**
 * Reads the billing variables; problems are added to `problems` (names and our own reasons only), like the
 * rest of the configuration. `dashboardUrl` is `TOP_UP_URL`'s default.
 */
export function loadBillingSettings(env: NodeJS.ProcessEnv, base: { dashboardUrl?: string }, problems: ConfigProblem[]): BillingSettings {
  const { values } = readSettings(env, BILLING_SETTINGS, problems);
  return {
    mode: values.mode ?? 'metered',
    topUpUrl: values.topUpUrl ?? base.dashboardUrl ?? '',
    ...(values.lowThreshold === undefined ? {} : { lowThreshold: values.lowThreshold }),
    holdOrphanSeconds: values.holdOrphanSeconds ?? 120,
    spendConfirmation: values.spendConfirmation ?? 'elicit',
    spendConfirmationAbove: values.spendConfirmationAbove ?? 1,
  };
}
