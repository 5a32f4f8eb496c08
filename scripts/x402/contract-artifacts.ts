import { readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

/** The project's contracts by name, each with its source file under `scripts/x402/contracts/`. */
export const CONTRACT_SOURCES = { TestDollar: 'test-dollar.sol', TryAggregate: 'try-aggregate.sol' } as const;

/** The name of one of the project's contracts. */
export type ContractName = keyof typeof CONTRACT_SOURCES;

const hex = z.string().regex(/^0x[0-9a-f]+$/);
const artifactSchema = z.object({ abi: z.array(z.record(z.string(), z.unknown())), bytecode: hex, deployedBytecode: hex });

/** What solc made of the contracts: the compiler's version and each contract's ABI and code. */
export const contractArtifactsSchema = z.object({
  compiler: z.string(),
  contracts: z.record(z.enum(Object.keys(CONTRACT_SOURCES) as [ContractName, ...ContractName[]]), artifactSchema),
});

/** The compiled contracts, as {@link contractArtifactsSchema} reads them. */
export type ContractArtifacts = z.infer<typeof contractArtifactsSchema>;

/** One contract's ABI and code. */
export type ContractArtifact = z.infer<typeof artifactSchema>;

/**
 * The committed compiler output. Committed rather than compiled at each start, which saves the stand about
 * two seconds; test/x402/contract-artifacts.test.ts recompiles the sources and fails when they differ.
 */
export const ARTIFACTS_FILE = path.join(__dirname, 'contracts', 'artifacts.json');

/** Reads one contract's committed artifact. */
export function contractArtifact(name: ContractName): ContractArtifact {
  return contractArtifactsSchema.parse(JSON.parse(readFileSync(ARTIFACTS_FILE, 'utf8'))).contracts[name];
}
