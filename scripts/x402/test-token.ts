import { type Address, getAddress, type Hex, toHex } from 'viem';
import { contractArtifact } from './contract-artifacts';
import { localPublicClient, localWalletClient } from './local-clients';

/** The test token's ABI, as solc wrote it (the committed artifact). */
export const TEST_TOKEN_ABI = contractArtifact('TestDollar').abi;

/** Where `@x402/evm`'s facilitator looks for Multicall3 (the same address on every chain). */
export const MULTICALL3_ADDRESS: Address = '0xcA11bde05977b3631167028862bE2a173976CA11';

/** The EIP-712 domain the token is deployed with: what `X402_ASSET_NAME` and `X402_ASSET_VERSION` say. */
export interface TokenDomain {
  readonly name: string;
  readonly version: string;
}

/** A token deployed on the local chain and the key that mints it. */
export interface DeployedToken extends TokenDomain {
  readonly address: Address;
  readonly rpcUrl: string;
  readonly minterKey: Hex;
}

async function rpc(rpcUrl: string, method: string, params: unknown[]): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Gives `address` `wei` of the chain's native coin (Hardhat's `hardhat_setBalance`): gas for the deployer and the facilitator. */
export async function setEtherBalance(rpcUrl: string, address: Address, wei: bigint): Promise<void> {
  await rpc(rpcUrl, 'hardhat_setBalance', [address, toHex(wei)]);
}

/** Places the project's TryAggregate code at Multicall3's address, so the facilitator can say why it refuses. */
export async function installTryAggregate(rpcUrl: string): Promise<void> {
  await rpc(rpcUrl, 'hardhat_setCode', [MULTICALL3_ADDRESS, contractArtifact('TryAggregate').deployedBytecode]);
}

/** Deploys the test token with `domain` from the account of `minterKey`, which alone may mint it. */
export async function deployTestToken(rpcUrl: string, minterKey: Hex, domain: TokenDomain): Promise<DeployedToken> {
  const wallet = localWalletClient(rpcUrl, minterKey);
  const { bytecode } = contractArtifact('TestDollar');
  const hash = await wallet.deployContract({ abi: TEST_TOKEN_ABI, bytecode: bytecode as Hex, args: [domain.name, domain.version] });
  const receipt = await wallet.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success' || !receipt.contractAddress) throw new Error(`the test token's deployment failed: ${hash}`);
  return { ...domain, address: getAddress(receipt.contractAddress), rpcUrl, minterKey };
}

/** Mints `amount` (atomic units) of `token` to `to`, once mined. */
export async function mintTokens(token: DeployedToken, to: Address, amount: bigint): Promise<void> {
  const wallet = localWalletClient(token.rpcUrl, token.minterKey);
  const hash = await wallet.writeContract({ address: token.address, abi: TEST_TOKEN_ABI, functionName: 'mint', args: [to, amount] });
  const receipt = await wallet.waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`minting failed: ${hash}`);
}

/** `owner`'s balance of `token` (atomic units). */
export async function tokenBalance(rpcUrl: string, token: Address, owner: Address): Promise<bigint> {
  return (await localPublicClient(rpcUrl).readContract({
    address: token,
    abi: TEST_TOKEN_ABI,
    functionName: 'balanceOf',
    args: [owner],
  })) as bigint;
}
