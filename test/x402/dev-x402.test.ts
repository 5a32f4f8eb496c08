import { expect } from 'chai';
import { DEV_ACCOUNTS } from '../../scripts/x402/dev-accounts';
import { tokenBalance } from '../../scripts/x402/test-token';
import { type DevProcess, startDev, stopDev } from '../support/dev-process';
import { accepts } from '../testkit/node-process';
import { waitFor } from '../testkit/wait-for';

/** The settings `npm run dev:x402` printed on its ready line, once it has. */
function readyLine(output: string): Record<string, string> | undefined {
  const line = output.split('\n').find((l) => l.startsWith('x402-kit ready '));
  return line ? JSON.parse(line.slice('x402-kit ready '.length)) : undefined;
}

describe('npm run dev:x402', function () {
  this.timeout(120_000);
  let dev: DevProcess | undefined;
  afterEach(async () => {
    if (dev) await stopDev(dev);
    dev = undefined;
  });

  it('starts the chain, the token, a funded payer, the facilitator and the connector with X402=on; SIGTERM stops all', async () => {
    dev = await startDev({ X402_DEV_CHAIN_PORT: '0', X402_DEV_FACILITATOR_PORT: '0' }, 'x402/dev-x402.ts');
    const settings = await waitFor(() => readyLine(dev!.output()), { timeoutMs: 90_000, what: 'the stand' });
    expect(settings).to.include({
      X402: 'on',
      X402_PAY_TO: DEV_ACCOUNTS.payTo.address,
      X402_NETWORK: 'eip155:31337',
      X402_ASSET_NAME: 'Test Dollar',
      X402_ASSET_VERSION: '2',
      X402_ATOMIC_PER_CREDIT: '10000',
      payerKey: DEV_ACCOUNTS.payer.privateKey,
    });
    expect(await tokenBalance(settings.rpcUrl, settings.X402_ASSET as `0x${string}`, DEV_ACCOUNTS.payer.address)).to.equal(1_000_000_000n);
    const supported = (await (await fetch(`${settings.X402_FACILITATOR_URL}/supported`)).json()) as { kinds: unknown[] };
    expect(supported.kinds).to.deep.include({ x402Version: 2, scheme: 'exact', network: 'eip155:31337' });
    await waitFor(async () => (await fetch(`${dev!.base}/healthz`).catch(() => undefined))?.ok, {
      timeoutMs: 60_000,
      what: 'the connector',
    });

    await stopDev(dev);
    dev = undefined;
    for (const url of [settings.rpcUrl, settings.X402_FACILITATOR_URL]) {
      expect(await accepts(Number(new URL(url).port)), url).to.equal(false);
    }
  });
});
