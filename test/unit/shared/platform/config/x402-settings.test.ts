import { expect } from 'chai';
import type { ConfigProblem } from '../../../../../shared/platform/config/settings-table';
import { loadX402Settings } from '../../../../../shared/platform/config/x402-settings';

const ON = {
  X402: 'on',
  X402_PAY_TO: '0x1111111111111111111111111111111111111111',
  X402_NETWORK: 'eip155:8453',
  X402_ASSET: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
  X402_ASSET_NAME: 'USD Coin',
  X402_ASSET_VERSION: '2',
  X402_ATOMIC_PER_CREDIT: '10000',
  X402_FACILITATOR_URL: 'https://facilitator.example.com/x402/',
};

describe('loadX402Settings', () => {
  it('nothing set: off, no problem', () => {
    const problems: ConfigProblem[] = [];
    expect(loadX402Settings({}, problems)).to.equal(undefined);
    expect(problems).to.deep.equal([]);
  });

  it('X402=on with every variable: each read, the facilitator URL without its trailing slash', () => {
    const problems: ConfigProblem[] = [];
    expect(loadX402Settings({ ...ON, X402_FACILITATOR_TOKEN: 'secret-token-123' }, problems)).to.deep.equal({
      payTo: ON.X402_PAY_TO,
      network: 'eip155:8453',
      asset: ON.X402_ASSET,
      assetName: 'USD Coin',
      assetVersion: '2',
      atomicPerCredit: '10000',
      facilitatorUrl: 'https://facilitator.example.com/x402',
      facilitatorToken: 'secret-token-123',
    });
    expect(problems).to.deep.equal([]);
  });

  it('X402=on with nothing else: each required variable named, and no settings', () => {
    const problems: ConfigProblem[] = [];
    expect(loadX402Settings({ X402: 'on' }, problems)).to.equal(undefined);
    expect(problems.map((problem) => problem.name)).to.deep.equal([
      'X402_PAY_TO',
      'X402_NETWORK',
      'X402_ASSET',
      'X402_ASSET_NAME',
      'X402_ASSET_VERSION',
      'X402_ATOMIC_PER_CREDIT',
      'X402_FACILITATOR_URL',
    ]);
    expect(problems.every((problem) => problem.reason === 'is required when X402=on')).to.equal(true);
  });

  it('invalid values: one problem each by name, the rule named, never the value', () => {
    const problems: ConfigProblem[] = [];
    const env = {
      ...ON,
      X402: 'yes',
      X402_PAY_TO: '0x123',
      X402_NETWORK: 'solana:mainnet',
      X402_ATOMIC_PER_CREDIT: '0',
      X402_FACILITATOR_URL: 'https://user:pw@facilitator.example.com',
    };
    expect(loadX402Settings(env, problems)).to.equal(undefined);
    expect(problems.map((problem) => problem.name)).to.deep.equal([
      'X402',
      'X402_PAY_TO',
      'X402_NETWORK',
      'X402_ATOMIC_PER_CREDIT',
      'X402_FACILITATOR_URL',
    ]);
    expect(problems.find((problem) => problem.name === 'X402')?.reason).to.equal('must be one of off, on');
    expect(JSON.stringify(problems)).not.to.include('pw@');
  });
});
