import type { PaymentPayload, PaymentRequirements } from '@x402/core/types';
import { getAddress, type Hex, verifyTypedData } from 'viem';

/** An EIP-3009 `transferWithAuthorization`, as the `exact` scheme's payload carries it. */
export interface ExactAuthorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
}

/** A payment payload of the `exact` scheme, read: the payer (lower case), its nonce and what it signed. */
export interface ExactPayment {
  payload: PaymentPayload;
  payer: string;
  nonce: string;
  authorization: ExactAuthorization;
  signature: Hex;
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const NONCE = /^0x[0-9a-fA-F]{64}$/;
const UINT = /^[0-9]{1,78}$/;
const SIGNATURE = /^0x[0-9a-fA-F]{2,2000}$/;

/** The EIP-712 types of `TransferWithAuthorization` (EIP-3009). */
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

/** Reads an `exact` EVM payment from a decoded payload; a string says why it is not one (hostile input: every field checked). */
export function readExactPayment(payload: PaymentPayload): ExactPayment | string {
  if (!payload || typeof payload !== 'object' || payload.x402Version !== 2) return 'the payment must be x402 version 2';
  const inner = payload.payload as { authorization?: Partial<Record<keyof ExactAuthorization, unknown>>; signature?: unknown } | undefined;
  const auth = inner?.authorization;
  if (!auth || typeof auth !== 'object') return 'the payment carries no EIP-3009 authorization';
  const { from, to, value, validAfter, validBefore, nonce } = auth;
  const fields = [from, to, value, validAfter, validBefore, nonce, inner?.signature];
  if (fields.some((field) => typeof field !== 'string')) return 'the payment authorization is malformed';
  if (!ADDRESS.test(from as string) || !ADDRESS.test(to as string) || !NONCE.test(nonce as string))
    return 'the payment authorization is malformed';
  if (![value, validAfter, validBefore].every((n) => UINT.test(n as string))) return 'the payment authorization is malformed';
  if (!SIGNATURE.test(inner?.signature as string)) return 'the payment signature is malformed';
  const authorization = { from, to, value, validAfter, validBefore, nonce } as ExactAuthorization;
  return {
    payload,
    payer: authorization.from.toLowerCase(),
    nonce: authorization.nonce.toLowerCase(),
    authorization,
    signature: inner?.signature as Hex,
  };
}

/**
 * Why the authorization cannot pay `wanted` now (another payee or amount, not yet or no longer valid); undefined
 * when it can. `marginSeconds` keeps a payment that would expire while it settles from being taken.
 */
export function authorizationProblem(
  payment: ExactPayment,
  wanted: PaymentRequirements,
  now: number,
  marginSeconds = 6,
): string | undefined {
  const { authorization } = payment;
  if (authorization.to.toLowerCase() !== wanted.payTo.toLowerCase()) return 'the payment is to another address';
  if (authorization.value !== wanted.amount) return 'the payment is for another amount';
  const seconds = BigInt(Math.floor(now / 1000));
  if (BigInt(authorization.validAfter) > seconds) return 'the payment authorization is not valid yet';
  if (BigInt(authorization.validBefore) <= seconds + BigInt(marginSeconds)) return 'the payment authorization has expired';
  return undefined;
}

/**
 * Whether the payer's own key signed the authorization for this token's EIP-712 domain: the proof that the
 * caller controls the payer's address, checked here without the chain (an externally owned account's
 * signature; a contract wallet's needs the facilitator).
 */
export async function signedByPayer(payment: ExactPayment, wanted: PaymentRequirements, chainId: number): Promise<boolean> {
  const { authorization } = payment;
  const name = wanted.extra.name as string;
  const version = wanted.extra.version as string;
  try {
    return await verifyTypedData({
      address: getAddress(authorization.from),
      domain: { name, version, chainId, verifyingContract: getAddress(wanted.asset) },
      types: AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: getAddress(authorization.from),
        to: getAddress(authorization.to),
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce as Hex,
      },
      signature: payment.signature,
    });
  } catch {
    return false;
  }
}

/** The chain id of an `eip155:<id>` network. */
export function chainIdOf(network: string): number {
  return Number(network.slice('eip155:'.length));
}
