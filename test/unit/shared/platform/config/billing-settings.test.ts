import { expect } from 'chai';
import { loadBillingSettings } from '../../../../../shared/platform/config/billing-settings';
import type { ConfigProblem } from '../../../../../shared/platform/config/settings-table';

const DASHBOARD = { dashboardUrl: 'https://dashboard.example.com' };

describe('loadBillingSettings', () => {
  it('nothing set: metered, top-up at the dashboard, no low threshold, orphaned holds after 120 s, confirmation by elicitation from 1 credit', () => {
    const problems: ConfigProblem[] = [];
    expect(loadBillingSettings({}, DASHBOARD, problems)).to.deep.equal({
      mode: 'metered',
      topUpUrl: 'https://dashboard.example.com',
      holdOrphanSeconds: 120,
      spendConfirmation: 'elicit',
      spendConfirmationAbove: 1,
    });
    expect(problems).to.deep.equal([]);
  });

  it('every variable set: each read, a query kept on TOP_UP_URL', () => {
    const env = {
      BILLING_MODE: 'prepaid',
      TOP_UP_URL: 'https://pay.example.com/checkout?plan=a',
      CREDITS_LOW_THRESHOLD: '50',
      SPEND_CONFIRMATION: 'required',
      SPEND_CONFIRMATION_ABOVE: '10',
      HOLD_ORPHAN_SECONDS: '30',
    };
    expect(loadBillingSettings(env, DASHBOARD, [])).to.deep.equal({
      mode: 'prepaid',
      topUpUrl: 'https://pay.example.com/checkout?plan=a',
      lowThreshold: 50,
      holdOrphanSeconds: 30,
      spendConfirmation: 'required',
      spendConfirmationAbove: 10,
    });
  });

  it('invalid values: one problem each by name, never echoing the value, defaults in their place', () => {
    const problems: ConfigProblem[] = [];
    const env = { BILLING_MODE: 'free', TOP_UP_URL: 'http://pay.example.com/#x', CREDITS_LOW_THRESHOLD: '-3' };
    const settings = loadBillingSettings(env, DASHBOARD, problems);
    expect(problems.map((problem) => problem.name)).to.deep.equal(['BILLING_MODE', 'TOP_UP_URL', 'CREDITS_LOW_THRESHOLD']);
    for (const value of Object.values(env)) expect(JSON.stringify(problems)).to.not.contain(value);
    expect(settings).to.include({ mode: 'metered', topUpUrl: 'https://dashboard.example.com' });
  });

  it('no dashboard and no TOP_UP_URL: an empty top-up address', () => {
    expect(loadBillingSettings({}, {}, []).topUpUrl).to.equal('');
  });
});
