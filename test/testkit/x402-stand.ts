import type { PaymentRequirements } from '@x402/core/types';
import type { Address } from 'viem';
import { connectorSettings } from '../../scripts/x402/connector-settings';
import type { FacilitatorEvent } from '../../scripts/x402/facilitator-server';
import {
  type FacilitatorMode,
  type KeyedAccount,
  keyedAccount,
  type LocalStandOptions,
  startLocalStand,
} from '../../scripts/x402/local-stand';
import { mintTokens, tokenBalance } from '../../scripts/x402/test-token';

/** The token a stand's payments are made in: its address and EIP-712 domain (`X402_ASSET*`). */
export interface StandAsset {
  readonly address: Address;
  readonly name: string;
  readonly version: string;
}

/**
 * A real x402 payment stand for tests: a local EVM (Hardhat's EDR) and a facilitator from `@x402/evm`, each a
 * process of its own, with the project's test token deployed and a payer funded.
 */
export interface X402Stand {
  /** The chain's JSON-RPC endpoint (viem's `http()` transport takes it). */
  readonly rpcUrl: string;
  /** The facilitator's base URL (`X402_FACILITATOR_URL`): `/supported`, `/verify`, `/settle`. */
  readonly facilitatorUrl: string;
  /** `eip155:31337` (`X402_NETWORK`). */
  readonly network: `${string}:${string}`;
  readonly asset: StandAsset;
  /** The seller's receiving address (`X402_PAY_TO`). */
  readonly payTo: Address;
  /** A payer holding 1,000 tokens (1,000,000,000 atomic units) at the start. */
  readonly payer: KeyedAccount;
  /** `address`'s token balance, in atomic units. */
  balanceOf(address: Address): Promise<bigint>;
  /** Mints `amount` atomic units to `address`. */
  fund(address: Address, amount: bigint): Promise<void>;
  /** A fresh account with `amount` atomic units (1,000 tokens unless said); 0 gives an unfunded one. */
  newPayer(amount?: bigint): Promise<KeyedAccount>;
  /**
   * The connector's settings for this stand: `X402=on` and every `X402_*` variable (a credit costs
   * `atomicPerCredit` token units, 10000 unless said), for the harness's overrides or a process's environment.
   */
  connectorEnv(atomicPerCredit?: bigint): Record<string, string>;
  /** The `exact` requirements of a payment of `amount` atomic units to {@link payTo}, with `overrides` on top. */
  requirements(amount: bigint, overrides?: Partial<PaymentRequirements>): PaymentRequirements;
  /** SIGKILLs the facilitator (a crash); resolves once it has exited. */
  killFacilitator(): Promise<void>;
  /** Starts the facilitator again at the same URL, answering. */
  restartFacilitator(): Promise<void>;
  /**
   * Switches the running facilitator without a restart (which takes seconds): with `{ stall: 'settle' }` it
   * settles on chain and then never answers (the money moved, the caller never hears it); with `{}` it answers
   * again, and the answers it kept back are lost, their connections cut. Resolves once it has switched.
   */
  setFacilitatorMode(mode: FacilitatorMode): Promise<void>;
  /**
   * The next step of a facilitator call made after this one: `('settle', 'done')` once a settlement is mined,
   * `('settle', 'received')` once one is asked for. Ask first, then make the call, then await.
   */
  nextFacilitatorEvent(call: FacilitatorEvent['call'], phase: FacilitatorEvent['phase']): Promise<FacilitatorEvent>;
  close(): Promise<void>;
}

/** What the payer and a new payer hold at the start: 1,000 tokens of 6 decimals. */
export const STAND_PAYER_FUNDS = 1_000_000_000n;

/**
 * Starts a stand: about 3 s on an idle machine (two Node processes, one deployment, one mint). Fresh random
 * keys every time; close it in an `after` hook.
 */
export async function startX402Stand(options: Omit<LocalStandOptions, 'payerFunds'> = {}): Promise<X402Stand> {
  const stand = await startLocalStand({ ...options, payerFunds: STAND_PAYER_FUNDS });
  const { token, accounts } = stand;
  const fund = (address: Address, amount: bigint) => mintTokens(token, address, amount);
  return {
    rpcUrl: stand.rpcUrl,
    facilitatorUrl: stand.facilitatorUrl,
    network: stand.network,
    asset: { address: token.address, name: token.name, version: token.version },
    payTo: accounts.payTo.address,
    payer: accounts.payer,
    balanceOf: (address) => tokenBalance(stand.rpcUrl, token.address, address),
    fund,
    newPayer: async (amount = STAND_PAYER_FUNDS) => {
      const account = keyedAccount();
      if (amount > 0n) await fund(account.address, amount);
      return account;
    },
    connectorEnv: (atomicPerCredit) => connectorSettings(stand, atomicPerCredit?.toString()),
    requirements: (amount, overrides = {}) => ({
      scheme: 'exact',
      network: stand.network,
      asset: token.address,
      amount: amount.toString(),
      payTo: accounts.payTo.address,
      maxTimeoutSeconds: 300,
      extra: { name: token.name, version: token.version },
      ...overrides,
    }),
    killFacilitator: stand.killFacilitator,
    restartFacilitator: stand.restartFacilitator,
    setFacilitatorMode: stand.setFacilitatorMode,
    nextFacilitatorEvent: stand.nextFacilitatorEvent,
    close: stand.close,
  };
}
