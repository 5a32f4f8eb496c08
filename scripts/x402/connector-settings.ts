import type { LocalStand } from './local-stand';

/** Token units (6 decimals) one credit costs unless said: a cent of the test dollar. */
export const DEFAULT_ATOMIC_PER_CREDIT = '10000';

/** The connector's x402 settings (the contract's names) for the chain, token, seller and facilitator of `stand`. */
export function connectorSettings(
  stand: Pick<LocalStand, 'network' | 'token' | 'accounts' | 'facilitatorUrl'>,
  atomicPerCredit = DEFAULT_ATOMIC_PER_CREDIT,
): Record<string, string> {
  return {
    X402: 'on',
    X402_PAY_TO: stand.accounts.payTo.address,
    X402_NETWORK: stand.network,
    X402_ASSET: stand.token.address,
    X402_ASSET_NAME: stand.token.name,
    X402_ASSET_VERSION: stand.token.version,
    X402_ATOMIC_PER_CREDIT: atomicPerCredit,
    X402_FACILITATOR_URL: stand.facilitatorUrl,
  };
}
