import {
  ContractDecoder,
  EdrContext,
  L1_CHAIN_TYPE,
  l1GenesisState,
  l1HardforkLatest,
  l1HardforkToString,
  l1ProviderFactory,
  MineOrdering,
  type Provider,
  type ProviderConfig,
} from '@nomicfoundation/edr';

/** The chain id of every local chain the kit starts (Hardhat's, so wallets know it as a local chain). */
export const LOCAL_CHAIN_ID = 31337;

/** A JSON-RPC request as the provider takes it. */
export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number | string | null;
  method: string;
  params?: unknown[];
}

/** Answers one JSON-RPC request: the provider's `result` or `error`, with the request's id. */
export type JsonRpcHandler = (request: JsonRpcRequest) => Promise<Record<string, unknown>>;

// One context per process: EDR allows a single one, and a provider of each chain type is made from it.
let context: Promise<EdrContext> | undefined;
function edrContext(): Promise<EdrContext> {
  context ??= (async () => {
    const made = new EdrContext();
    await made.registerProviderFactory(L1_CHAIN_TYPE, l1ProviderFactory());
    return made;
  })();
  return context;
}

/**
 * The provider's settings: a fresh chain of the latest L1 hardfork with no funded account (the starter funds
 * the accounts it makes through `hardhat_setBalance`), mining each transaction into its own block as it comes,
 * so a settlement's receipt is there as soon as its hash is. The block gas limit is Ethereum's.
 */
function providerConfig(): ProviderConfig {
  const hardfork = l1HardforkLatest();
  return {
    allowBlocksWithSameTimestamp: false,
    allowUnlimitedContractSize: false,
    // As a real node: a reverted eth_call answers an error (the facilitator's simulation relies on it), while a
    // reverted transaction is still mined and its receipt says so.
    bailOnCallFailure: true,
    bailOnTransactionFailure: false,
    chainId: BigInt(LOCAL_CHAIN_ID),
    coinbase: Buffer.alloc(20),
    defaultTransactionGasLimit: 16_000_000n,
    genesisState: l1GenesisState(hardfork),
    hardfork: l1HardforkToString(hardfork),
    initialBaseFeePerGas: 1_000_000_000n,
    minGasPrice: 0n,
    mining: { autoMine: true, memPool: { order: MineOrdering.Priority } },
    network: { genesisBlockGasLimit: 36_000_000n },
    networkId: BigInt(LOCAL_CHAIN_ID),
    observability: {},
    ownedAccounts: [],
    precompileOverrides: [],
  };
}

/**
 * Starts an in-memory EVM chain with Hardhat's EDR (a Node-API module: it loads on Node 20 as on 22 and later,
 * whatever its package's `engines` says) and returns its JSON-RPC handler.
 */
export async function startEdrChain(): Promise<JsonRpcHandler> {
  const edr = await edrContext();
  const provider: Provider = await edr.createProvider(
    L1_CHAIN_TYPE,
    providerConfig(),
    { enable: false, decodeConsoleLogInputsCallback: () => [], printLineCallback: () => undefined },
    { subscriptionCallback: () => undefined },
    new ContractDecoder(),
  );
  return async (request) => {
    // EDR wants `params` present; viem leaves it out of methods that take none (eth_gasPrice).
    const response = await provider.handleRequest(JSON.stringify({ ...request, params: request.params ?? [] }));
    const data: Record<string, unknown> = typeof response.data === 'string' ? JSON.parse(response.data) : response.data;
    return { jsonrpc: '2.0', id: request.id, ...data };
  };
}
