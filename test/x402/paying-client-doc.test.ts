import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { DEV_ACCOUNTS } from '../../scripts/x402/dev-accounts';
import { tokenBalance } from '../../scripts/x402/test-token';
import { type DevProcess, startDev, stopDev } from '../support/dev-process';
import { waitFor } from '../testkit/wait-for';

const ROOT = path.resolve(__dirname, '..', '..');
const GUIDE = path.join(ROOT, 'docs', 'getting-paid-by-agents.md');

/** The guide's paying client: the one `ts` block of its section "A paying client". */
function payingClient(): string {
  const guide = readFileSync(GUIDE, 'utf8');
  const section = guide.slice(guide.indexOf('## A paying client'));
  const match = /```ts\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error('docs/getting-paid-by-agents.md has no paying client');
  return match[1];
}

describe('docs/getting-paid-by-agents.md: the paying client runs against npm run dev:x402', function () {
  this.timeout(300_000);
  let dev: DevProcess | undefined;
  const script = path.join(ROOT, `.paying-client-${randomBytes(4).toString('hex')}.mts`);
  after(async () => {
    rmSync(script, { force: true });
    if (dev) await stopDev(dev);
  });

  it('is under 30 lines, pays the price of a job on chain and gets the 202', async () => {
    const client = payingClient();
    expect(client.trimEnd().split('\n').length).to.be.below(30);
    dev = await startDev({ X402_DEV_CHAIN_PORT: '0', X402_DEV_FACILITATOR_PORT: '0' }, path.join(ROOT, 'scripts', 'x402', 'dev-x402.ts'));
    const ready = await waitFor(
      () => {
        const line = dev!
          .output()
          .split('\n')
          .find((l) => l.startsWith('x402-kit ready '));
        return line ? (JSON.parse(line.slice('x402-kit ready '.length)) as Record<string, string>) : undefined;
      },
      { timeoutMs: 180_000, what: 'the stand' },
    );
    await waitFor(async () => (await fetch(`${dev!.base}/healthz`).catch(() => undefined))?.ok, {
      timeoutMs: 60_000,
      what: 'the connector',
    });
    const balance = () => tokenBalance(ready.rpcUrl, ready.X402_ASSET as `0x${string}`, DEV_ACCOUNTS.payer.address);
    const before = await balance();
    // Verbatim but for where the connector listens: the test's dev process has a port of its own.
    writeFileSync(script, client.replaceAll('http://localhost:8787', dev.base));
    const { stdout } = await promisify(execFile)(path.join(ROOT, 'node_modules', '.bin', 'tsx'), [script], { cwd: ROOT, timeout: 120_000 });
    expect(stdout).to.match(/^202 /);
    expect(stdout).to.match(/paid in transaction 0x[0-9a-f]{64}/);
    expect(await balance()).to.equal(before - 10_000n);
  });
});
