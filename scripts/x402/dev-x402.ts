import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { connectorSettings } from './connector-settings';
import { DEV_ACCOUNTS } from './dev-accounts';
import { type LocalStand, startLocalStand } from './local-stand';
import { announceReady, TSX_IMPORT } from './script-process';

// `npm run dev:x402`: the local chain, the test token, a funded payer and the facilitator, then `npm run dev`
// with X402=on and the X402_* settings pointing at them. Ctrl-C stops all. Ports: the chain on
// X402_DEV_CHAIN_PORT (8545), the facilitator on X402_DEV_FACILITATOR_PORT (4021), the connector as npm run dev.

/** What a paying client needs, for a person at the terminal. */
function banner(stand: LocalStand, settings: Record<string, string>): string {
  const lines = [
    'x402 dev stand (local chain only: these keys are public and worth nothing elsewhere)',
    `  chain RPC        ${stand.rpcUrl}   (chain id 31337, ${stand.network})`,
    `  facilitator      ${stand.facilitatorUrl}`,
    `  token            ${stand.token.address}   ("${stand.token.name}", version "${stand.token.version}", 6 decimals)`,
    `  payer            ${stand.accounts.payer.address}   holding 1,000 tokens`,
    `  payer's key      X402_PAYER_KEY=${stand.accounts.payer.privateKey}`,
    `  seller (payTo)   ${stand.accounts.payTo.address}`,
    ...Object.entries(settings).map(([name, value]) => `  ${name}=${value}`),
  ];
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const stand = await startLocalStand({
    accounts: DEV_ACCOUNTS,
    chainPort: Number(process.env.X402_DEV_CHAIN_PORT ?? 8545),
    facilitatorPort: Number(process.env.X402_DEV_FACILITATOR_PORT ?? 4021),
  });
  const settings = connectorSettings(stand, process.env.X402_ATOMIC_PER_CREDIT);
  process.stdout.write(banner(stand, settings));
  announceReady({ rpcUrl: stand.rpcUrl, payerKey: stand.accounts.payer.privateKey, ...settings });
  // The connector is `npm run dev` itself (scripts/dev.ts, same working directory and .env), in one process,
  // which stops when this one is gone (exit-with-parent.ts).
  const tie = pathToFileURL(path.join(__dirname, 'exit-with-parent.ts')).href;
  const connector = spawn(process.execPath, ['--import', TSX_IMPORT, '--import', tie, path.join(__dirname, '..', 'dev.ts')], {
    env: { ...process.env, ...settings },
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
  });
  const stop = (signal: NodeJS.Signals) => connector.kill(signal);
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  connector.once('exit', (code, signal) => {
    void stand.close().finally(() => process.exit(code ?? (signal ? 1 : 0)));
  });
}

void main().catch((error: Error) => {
  process.stderr.write(`npm run dev:x402 did not start: ${error.message}\n`);
  process.exit(1);
});
