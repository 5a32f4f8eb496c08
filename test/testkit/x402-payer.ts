import { randomBytes } from 'node:crypto';
import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { registerExactEvmScheme } from '@x402/evm/exact/client';
import { wrapFetchWithPayment, x402Client } from '@x402/fetch';
import { type Address, getAddress, type Hex, toHex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { KeyedAccount } from '../../scripts/x402/local-stand';
import type { X402Stand } from './x402-stand';

/**
 * The official x402 client paying as `payer`: `@x402/evm`'s `exact` scheme over a viem account. Its spend
 * controls allow the stand's token (the client refuses assets it does not know by default), uncapped.
 */
export function standClient(stand: Pick<X402Stand, 'network' | 'asset'>, payer: KeyedAccount): x402Client {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(payer.privateKey) });
  return client.setSpendControls({ allowedAssets: [{ network: stand.network as `${string}:${string}`, asset: stand.asset.address }] });
}

/** `fetch` that answers a 402 by paying as `payer` and retrying (`@x402/fetch`'s `wrapFetchWithPayment`). */
export function payingFetch(stand: Pick<X402Stand, 'network' | 'asset'>, payer: KeyedAccount, base: typeof fetch = fetch): typeof fetch {
  return wrapFetchWithPayment(base, standClient(stand, payer)) as typeof fetch;
}

/** An EIP-3009 authorization as the `exact` scheme's payload carries it. */
export interface Authorization {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

/** What {@link signPayment} signs: the requirements, and whatever should differ from what they ask. */
export interface RawPayment {
  readonly payer: KeyedAccount;
  readonly requirements: PaymentRequirements;
  /** Fields of the signed authorization to set (an expired `validBefore`, another `to`, a reused `nonce`). */
  readonly authorization?: Partial<Authorization>;
  /** Fields of the EIP-712 domain signed over (another token's address or name). */
  readonly domain?: Partial<{ name: string; version: string; verifyingContract: Address; chainId: number }>;
}

const AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/**
 * Signs an x402 v2 `exact` payment payload by hand, as the official client would, but with any field
 * overridden: for refusals the official client would never produce (expired, wrong `payTo`, wrong asset,
 * a nonce used before).
 */
export async function signPayment({ payer, requirements, authorization = {}, domain = {} }: RawPayment): Promise<PaymentPayload> {
  const now = Math.floor(Date.now() / 1000);
  const signed: Authorization = {
    from: payer.address,
    to: getAddress(requirements.payTo),
    value: requirements.amount,
    validAfter: String(now - 600),
    validBefore: String(now + requirements.maxTimeoutSeconds),
    nonce: toHex(randomBytes(32)),
    ...authorization,
  };
  const signature = await privateKeyToAccount(payer.privateKey).signTypedData({
    domain: {
      name: String(requirements.extra.name),
      version: String(requirements.extra.version),
      chainId: Number(requirements.network.split(':')[1]),
      verifyingContract: getAddress(requirements.asset),
      ...domain,
    },
    types: AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: {
      ...signed,
      value: BigInt(signed.value),
      validAfter: BigInt(signed.validAfter),
      validBefore: BigInt(signed.validBefore),
    },
  });
  return { x402Version: 2, accepted: requirements, payload: { authorization: signed, signature } };
}

/** `payload` with one bit of its signature's `r` flipped: still well formed, no longer the payer's. */
export function tamperSignature(payload: PaymentPayload): PaymentPayload {
  const signature = String(payload.payload.signature);
  const flipped = (Number.parseInt(signature[10], 16) ^ 1).toString(16);
  return { ...payload, payload: { ...payload.payload, signature: `${signature.slice(0, 10)}${flipped}${signature.slice(11)}` } };
}
