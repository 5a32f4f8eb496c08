import { createInterface } from 'node:readline';
import { x402Facilitator } from '@x402/core/facilitator';
import type { Network } from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import type { Hex } from 'viem';
import { serveFacilitator } from './facilitator-server';
import { localWalletClient } from './local-clients';
import { announceEvent, announceReady, closeOnSignals } from './script-process';

// The x402 facilitator as a process of its own, built from the official packages: `@x402/evm`'s `exact`
// scheme (EIP-3009 `transferWithAuthorization`) registered on `@x402/core`'s facilitator for one network, its
// transactions sent and paid for by the account of X402_FACILITATOR_KEY on the chain at X402_RPC_URL. Served
// on the loopback at PORT (any free port when unset); the ready line carries its URL and its address. Each step
// of each call is printed as an event line. A line `{"stall":"settle"}` on its standard input makes it settle
// and then never answer, `{}` answer again (the answers kept back are lost): each is echoed as the event
// `{"mode":…}` once applied. Switching takes a moment, where a restart would reload `@x402/evm` and viem.

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

/** The facilitator's signer: viem's wallet and public actions on the local chain, as `@x402/evm` takes them. */
function facilitatorSigner(rpcUrl: string, key: Hex) {
  const client = localWalletClient(rpcUrl, key);
  return toFacilitatorEvmSigner({
    address: client.account.address,
    getCode: (args) => client.getCode(args),
    readContract: (args) => client.readContract({ ...args, args: args.args ?? [] } as Parameters<typeof client.readContract>[0]),
    verifyTypedData: (args) => client.verifyTypedData(args as Parameters<typeof client.verifyTypedData>[0]),
    writeContract: (args) => client.writeContract({ ...args, args: args.args ?? [] } as Parameters<typeof client.writeContract>[0]),
    sendTransaction: (args) => client.sendTransaction(args),
    waitForTransactionReceipt: (args) => client.waitForTransactionReceipt(args),
  });
}

async function main(): Promise<void> {
  const signer = facilitatorSigner(required('X402_RPC_URL'), required('X402_FACILITATOR_KEY') as Hex);
  const facilitator = new x402Facilitator().register(required('X402_NETWORK') as Network, new ExactEvmScheme(signer));
  const server = await serveFacilitator(facilitator, {
    port: Number(process.env.PORT ?? 0),
    onEvent: (event) => announceEvent({ ...event }),
  });
  closeOnSignals(() => server.close());
  createInterface({ input: process.stdin }).on('line', (line) => {
    const mode = JSON.parse(line) as { stall?: 'settle' };
    server.stall(mode.stall === 'settle' ? 'settle' : undefined);
    announceEvent({ mode });
  });
  announceReady({ facilitatorUrl: server.url, address: signer.getAddresses()[0] });
}

void main().catch((error: Error) => {
  process.stderr.write(`the facilitator did not start: ${error.message}\n`);
  process.exit(1);
});
