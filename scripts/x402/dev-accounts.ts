import { keccak256, toBytes } from 'viem';
import { type KeyedAccount, keyedAccount, type StandAccounts } from './local-stand';

/**
 * The fixed accounts of `npm run dev:x402`: each key is the hash of a public label, so the same on every
 * machine and every run (a client's script can name them), and worthless anywhere but the local chain,
 * which starts empty each time. Tests never use them: the test stand makes fresh random keys.
 */
function devAccount(role: string): KeyedAccount {
  return keyedAccount(keccak256(toBytes(`connector npm run dev:x402 ${role}, local chain only`)));
}

/** The minter, the facilitator, the payer and the seller (`X402_PAY_TO`) of `npm run dev:x402`. */
export const DEV_ACCOUNTS: StandAccounts = {
  minter: devAccount('minter'),
  facilitator: devAccount('facilitator'),
  payer: devAccount('payer'),
  payTo: devAccount('seller'),
};
