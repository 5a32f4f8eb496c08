import { type Address, type Hex, parseEther } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { LOCAL_CHAIN_ID } from './edr-provider';
import type { FacilitatorEvent } from './facilitator-server';
import { startScript } from './script-process';
import { type DeployedToken, deployTestToken, installTryAggregate, mintTokens, setEtherBalance, type TokenDomain } from './test-token';

/** The CAIP-2 id of the local chain: what `X402_NETWORK` says. */
export const LOCAL_NETWORK = `eip155:${LOCAL_CHAIN_ID}` as const;

/** The token's EIP-712 domain unless told otherwise (USDC's is "USD Coin", "2": the same shape). */
export const DEFAULT_TOKEN_DOMAIN: TokenDomain = { name: 'Test Dollar', version: '2' };

/** An account's key and address. */
export interface KeyedAccount {
  readonly privateKey: Hex;
  readonly address: Address;
}

/** Makes the account of `privateKey`, or of a fresh random key. */
export function keyedAccount(privateKey: Hex = generatePrivateKey()): KeyedAccount {
  return { privateKey, address: privateKeyToAccount(privateKey).address };
}

/** How the facilitator behaves: as a facilitator should (`{}`), or stalling after it settles. */
export interface FacilitatorMode {
  readonly stall?: 'settle';
}

/** The accounts of a stand: who deploys and mints, who settles and pays gas, who pays, who is paid. */
export interface StandAccounts {
  readonly minter: KeyedAccount;
  readonly facilitator: KeyedAccount;
  readonly payer: KeyedAccount;
  readonly payTo: KeyedAccount;
}

/** What a stand is started with; every field has a default. */
export interface LocalStandOptions {
  /** Fixed keys (`npm run dev:x402` prints them); fresh random ones by default. */
  readonly accounts?: Partial<StandAccounts>;
  readonly domain?: TokenDomain;
  /** What the payer is minted at the start, in atomic units (6 decimals): 1,000 tokens by default. */
  readonly payerFunds?: bigint;
  /** The facilitator's port; any free one by default (a restart keeps the port it had). */
  readonly facilitatorPort?: number;
  readonly chainPort?: number;
}

/** A running chain, token and facilitator. */
export interface LocalStand {
  readonly rpcUrl: string;
  readonly facilitatorUrl: string;
  readonly network: typeof LOCAL_NETWORK;
  readonly token: DeployedToken;
  readonly accounts: StandAccounts;
  /** SIGKILLs the facilitator process (as a crash would) and resolves once it has exited. */
  killFacilitator(): Promise<void>;
  /** Starts the facilitator again on the same URL (after {@link killFacilitator}, or stopping it first), answering. */
  restartFacilitator(): Promise<void>;
  /**
   * Switches the running facilitator, without a restart: with `stall: 'settle'` it settles on chain and then
   * never answers; with `{}` it answers again, and the answers it kept back are lost (their connections cut).
   * Resolves once the facilitator has switched.
   */
  setFacilitatorMode(mode: FacilitatorMode): Promise<void>;
  /**
   * The next step of a facilitator call after this one (`{ call: 'settle', phase: 'done' }`: a settlement
   * mined): ask before making the call, then await it, to act at that exact point (kill the facilitator or
   * the API).
   */
  nextFacilitatorEvent(call: FacilitatorEvent['call'], phase: FacilitatorEvent['phase']): Promise<FacilitatorEvent>;
  /** Stops the facilitator and the chain. */
  close(): Promise<void>;
}

function standAccounts(given: Partial<StandAccounts> = {}): StandAccounts {
  return {
    minter: given.minter ?? keyedAccount(),
    facilitator: given.facilitator ?? keyedAccount(),
    payer: given.payer ?? keyedAccount(),
    payTo: given.payTo ?? keyedAccount(),
  };
}

function startFacilitator(rpcUrl: string, key: Hex, port: number) {
  return startScript<{ facilitatorUrl: string }>({
    entry: 'facilitator.ts',
    env: { X402_RPC_URL: rpcUrl, X402_NETWORK: LOCAL_NETWORK, X402_FACILITATOR_KEY: key, PORT: String(port) },
  });
}

/** Deploys the token, gives the minter and the facilitator gas, and mints the payer's funds. */
async function prepareChain(rpcUrl: string, accounts: StandAccounts, options: LocalStandOptions): Promise<DeployedToken> {
  await Promise.all([
    setEtherBalance(rpcUrl, accounts.minter.address, parseEther('1000')),
    setEtherBalance(rpcUrl, accounts.facilitator.address, parseEther('1000')),
    installTryAggregate(rpcUrl),
  ]);
  const token = await deployTestToken(rpcUrl, accounts.minter.privateKey, options.domain ?? DEFAULT_TOKEN_DOMAIN);
  await mintTokens(token, accounts.payer.address, options.payerFunds ?? 1_000_000_000n);
  return token;
}

/**
 * Starts the local chain (EDR, its own process), then deploys the test token and funds the payer while the
 * facilitator (its own process, killable and restartable mid-flow) starts: it needs only the chain's URL until
 * its first settlement, and loading `@x402/evm` and viem is the longest part of a start. On a failure midway
 * whatever started is stopped before the error is thrown.
 */
export async function startLocalStand(options: LocalStandOptions = {}): Promise<LocalStand> {
  const accounts = standAccounts(options.accounts);
  const chain = await startScript<{ rpcUrl: string }>({ entry: 'chain.ts', env: { PORT: String(options.chainPort ?? 0) } });
  const { rpcUrl } = chain.ready;
  const [prepared, started] = await Promise.allSettled([
    prepareChain(rpcUrl, accounts, options),
    startFacilitator(rpcUrl, accounts.facilitator.privateKey, options.facilitatorPort ?? 0),
  ]);
  if (prepared.status === 'rejected' || started.status === 'rejected') {
    if (started.status === 'fulfilled') await started.value.stop();
    await chain.stop();
    throw prepared.status === 'rejected' ? prepared.reason : (started as PromiseRejectedResult).reason;
  }
  let facilitator = started.value;
  const facilitatorUrl = facilitator.ready.facilitatorUrl;
  const port = Number(new URL(facilitatorUrl).port);
  return {
    rpcUrl,
    facilitatorUrl,
    network: LOCAL_NETWORK,
    token: prepared.value,
    accounts,
    killFacilitator: () => facilitator.stop('SIGKILL'),
    restartFacilitator: async () => {
      await facilitator.stop();
      facilitator = await startFacilitator(rpcUrl, accounts.facilitator.privateKey, port);
    },
    setFacilitatorMode: async (mode) => {
      const { child } = facilitator;
      if (child.exitCode !== null || child.signalCode !== null) throw new Error('the facilitator is not running: restart it first');
      const switched = facilitator.nextEvent((event) => JSON.stringify(event.mode) === JSON.stringify(mode));
      child.stdin?.write(`${JSON.stringify(mode)}\n`);
      await switched;
    },
    nextFacilitatorEvent: async (call, phase) =>
      (await facilitator.nextEvent((event) => event.call === call && event.phase === phase)) as unknown as FacilitatorEvent,
    close: async () => {
      await facilitator.stop();
      await chain.stop();
    },
  };
}
