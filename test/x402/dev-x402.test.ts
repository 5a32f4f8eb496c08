import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DEV_ACCOUNTS } from '../../scripts/x402/dev-accounts';
import { tokenBalance } from '../../scripts/x402/test-token';
import { type DevProcess, startDev, stopDev } from '../support/dev-process';
import { ROOT } from '../support/spawn-process';
import { accepts } from '../testkit/node-process';
import { waitFor } from '../testkit/wait-for';

const GUIDE = path.join(ROOT, 'docs', 'getting-paid-by-agents.md');

/** The settings `npm run dev:x402` printed on its ready line, once it has. */
function readyLine(output: string): Record<string, string> | undefined {
  const line = output.split('\n').find((l) => l.startsWith('x402-kit ready '));
  return line ? JSON.parse(line.slice('x402-kit ready '.length)) : undefined;
}

/** The guide's paying client: the one `ts` block of its section "A paying client". */
function payingClient(): string {
  const guide = readFileSync(GUIDE, 'utf8');
  const section = guide.slice(guide.indexOf('## A paying client'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('docs/getting-paid-by-agents.md has no paying client');
  return match[1];
}

// One `npm run dev:x402` for the checks of its start, the guide's paying client, and its stop (a start is a
// chain, a facilitator and a connector: seconds of a loaded machine), in that order: the last one stops it.
describe('npm run dev:x402, and the paying client of docs/getting-paid-by-agents.md against it', function () {
  this.timeout(300_000);
  let dev: DevProcess | undefined;
  let settings: Record<string, string>;
  /** The dev payer's balance once the stand was up, before any test paid. */
  let funded: bigint;
  const script = path.join(ROOT, `.paying-client-${randomBytes(4).toString('hex')}.mts`);
  const payerBalance = () => tokenBalance(settings.rpcUrl, settings.X402_ASSET as `0x${string}`, DEV_ACCOUNTS.payer.address);

  before(async () => {
    dev = await startDev({ X402_DEV_CHAIN_PORT: '0', X402_DEV_FACILITATOR_PORT: '0' }, path.join(ROOT, 'scripts', 'x402', 'dev-x402.ts'));
    settings = await waitFor(() => readyLine(dev!.output()), { timeoutMs: 180_000, what: 'the stand' });
    funded = await payerBalance();
    await waitFor(async () => (await fetch(`${dev!.base}/healthz`).catch(() => undefined))?.ok, {
      timeoutMs: 60_000,
      what: 'the connector',
    });
  });
  after(async () => {
    rmSync(script, { force: true });
    if (dev) await stopDev(dev);
  });

  it('starts the chain, the token, a funded payer, the facilitator and the connector with X402=on', async () => {
    expect(settings).to.include({
      X402: 'on',
      X402_PAY_TO: DEV_ACCOUNTS.payTo.address,
      X402_NETWORK: 'eip155:31337',
      X402_ASSET_NAME: 'Test Dollar',
      X402_ASSET_VERSION: '2',
      X402_ATOMIC_PER_CREDIT: '10000',
      payerKey: DEV_ACCOUNTS.payer.privateKey,
    });
    expect(funded).to.equal(1_000_000_000n);
    const supported = (await (await fetch(`${settings.X402_FACILITATOR_URL}/supported`)).json()) as { kinds: unknown[] };
    expect(supported.kinds).to.deep.include({ x402Version: 2, scheme: 'exact', network: 'eip155:31337' });
  });

  it('the guide’s paying client is under 30 lines, pays the price of a job on chain and gets the 202', async () => {
    const client = payingClient();
    expect(client.trimEnd().split('\n').length).to.be.below(30);
    const before = await payerBalance();
    // Verbatim but for where the connector listens: the test's dev process has a port of its own.
    writeFileSync(script, client.replaceAll('http://localhost:8787', dev!.base));
    const { stdout } = await promisify(execFile)(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [script], { cwd: ROOT, timeout: 120_000 });
    expect(stdout).to.match(/^202 /);
    expect(stdout).to.match(/paid in transaction 0x[0-9a-f]{64}/);
    expect(await payerBalance()).to.equal(before - 10_000n);
  });

  it('SIGTERM stops it, and the connector, the facilitator and the chain with it', async () => {
    const connector = dev!.base;
    await stopDev(dev!);
    dev = undefined;
    // Each stops once its parent is gone, and would even if the parent had been killed outright.
    for (const url of [connector, settings.X402_FACILITATOR_URL, settings.rpcUrl]) {
      await waitFor(async () => !(await accepts(Number(new URL(url).port))), { timeoutMs: 20_000, what: `${url} to stop listening` });
    }
  });
});
