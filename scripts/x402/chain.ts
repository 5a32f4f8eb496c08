import { startEdrChain } from './edr-provider';
import { serveJsonRpc } from './json-rpc-server';
import { announceReady, closeOnSignals } from './script-process';

// The local chain as a process of its own: EDR's in-memory EVM served as JSON-RPC over HTTP on the loopback,
// on PORT (any free port when unset). Its ready line carries the URL. The chain lives as long as the process.
async function main(): Promise<void> {
  const server = await serveJsonRpc(await startEdrChain(), Number(process.env.PORT ?? 0));
  closeOnSignals(() => server.close());
  announceReady({ rpcUrl: server.url });
}

void main().catch((error: Error) => {
  process.stderr.write(`the local chain did not start: ${error.message}\n`);
  process.exit(1);
});
