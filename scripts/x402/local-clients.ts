import { createPublicClient, createWalletClient, defineChain, type Hex, http, publicActions } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { LOCAL_CHAIN_ID } from './edr-provider';

/**
 * The local chain as viem knows it. Polled every 50 ms rather than viem's default 4 s: the chain mines each
 * transaction at once, and a receipt wait should end as soon as the block is there.
 */
export function localChain(rpcUrl: string) {
  return defineChain({
    id: LOCAL_CHAIN_ID,
    name: 'x402 local chain',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

const POLLING_MS = 50;

/** A client that reads the local chain at `rpcUrl`. */
export function localPublicClient(rpcUrl: string) {
  return createPublicClient({ chain: localChain(rpcUrl), transport: http(rpcUrl), pollingInterval: POLLING_MS, cacheTime: 0 });
}

/** A client that signs and sends with the account of `privateKey` on the local chain, and reads it too. */
export function localWalletClient(rpcUrl: string, privateKey: Hex) {
  return createWalletClient({
    account: privateKeyToAccount(privateKey),
    chain: localChain(rpcUrl),
    transport: http(rpcUrl),
    pollingInterval: POLLING_MS,
    cacheTime: 0,
  }).extend(publicActions);
}
