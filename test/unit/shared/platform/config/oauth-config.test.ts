import { expect } from 'chai';
import { loadOAuthSettings } from '../../../../../shared/platform/config/oauth-config';
import type { ConfigProblem } from '../../../../../shared/platform/config/settings-table';

const DASHBOARD = { dashboardUrl: 'https://dashboard.example.com/' };
const CLIENT = {
  client_id: 'cc_gpt_actions',
  client_name: 'My GPT',
  redirect_uris: ['https://chat.example.com/cb'],
  secret_sha256: 'ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0',
};

/** The settings and problems `env` gives. */
function load(env: Record<string, string>) {
  const problems: ConfigProblem[] = [];
  return { settings: loadOAuthSettings(env, DASHBOARD, problems), problems };
}

describe('loadOAuthSettings', () => {
  it("nothing set: the documented lifetimes, no clients, consent at the dashboard's /connect", () => {
    expect(load({})).to.deep.equal({
      problems: [],
      settings: {
        consentUrl: 'https://dashboard.example.com/connect',
        consentUrlSet: false,
        accessTokenTtlSeconds: 3600,
        requestTtlSeconds: 600,
        codeTtlSeconds: 60,
        maxRegisteredClients: 10_000,
        unusedClientTtlSeconds: 86_400,
        clients: [],
      },
    });
  });

  it('CONSENT_URL set: used as it is, and marked set (the dev consent page then stays off)', () => {
    expect(load({ CONSENT_URL: 'https://consent.example.com/ok' }).settings).to.include({
      consentUrl: 'https://consent.example.com/ok',
      consentUrlSet: true,
    });
  });

  it('OAUTH_CLIENTS with valid clients: read as given', () => {
    expect(load({ OAUTH_CLIENTS: JSON.stringify([CLIENT]) }).settings.clients).to.deep.equal([CLIENT]);
  });

  it('OAUTH_CLIENTS malformed: one problem by name that never echoes the value', () => {
    const cases = [
      'not json',
      JSON.stringify(CLIENT),
      JSON.stringify([{ ...CLIENT, client_id: 'short' }]),
      JSON.stringify([{ ...CLIENT, redirect_uris: ['http://chat.example.com/cb'] }]),
      JSON.stringify([{ ...CLIENT, redirect_uris: [] }]),
      JSON.stringify([{ ...CLIENT, secret_sha256: 'plain-secret' }]),
    ];
    for (const value of cases) {
      const { problems } = load({ OAUTH_CLIENTS: value });
      expect(
        problems.map((problem) => problem.name),
        value,
      ).to.deep.equal(['OAUTH_CLIENTS']);
      expect(problems[0].reason).to.not.contain(value);
    }
  });

  it('OAUTH_CLIENTS breaking a field rule: the problem names the field, its rule (the pattern, for a pattern rule) and which client', () => {
    const cases: Array<[unknown[], string]> = [
      [[CLIENT, 'x'], 'must list clients whose entries are objects (client 2)'],
      [[{ ...CLIENT, client_id: 'short' }], 'must list clients whose client_id matches ^[A-Za-z0-9_-]{8,64}$ (client 1)'],
      [[{ ...CLIENT, client_name: 7 }], 'must list clients whose client_name is a string (client 1)'],
      [[{ ...CLIENT, secret_sha256: 'plain-secret' }], 'must list clients whose secret_sha256 matches ^[A-Za-z0-9_-]{43}$ (client 1)'],
      [
        [{ ...CLIENT, redirect_uris: ['http://chat.example.com/cb'] }],
        'must list clients whose redirect_uris are https:// URLs, at least one (client 1)',
      ],
    ];
    for (const [clients, reason] of cases) {
      expect(load({ OAUTH_CLIENTS: JSON.stringify(clients) }).problems, reason).to.deep.equal([{ name: 'OAUTH_CLIENTS', reason }]);
    }
  });

  it('a lifetime out of range: named, and the unusable settings returned instead of partial ones', () => {
    const { settings, problems } = load({ OAUTH_CODE_TTL_SECONDS: '601' });
    expect(problems).to.deep.equal([{ name: 'OAUTH_CODE_TTL_SECONDS', reason: 'must be between 1 and 600' }]);
    expect(settings).to.include({ consentUrl: '', accessTokenTtlSeconds: 0 });
  });
});
