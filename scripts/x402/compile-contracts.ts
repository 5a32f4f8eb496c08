import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ARTIFACTS_FILE, CONTRACT_SOURCES, type ContractArtifacts, contractArtifactsSchema } from './contract-artifacts';

// solc's JavaScript build (the compiler compiled to WebAssembly, no download): the contracts are compiled
// offline with the exact version package.json pins, so the committed artifacts can be checked by recompiling.
const solc = require('solc') as { compile(input: string): string; version(): string };

/** The standard-JSON input: every source of {@link CONTRACT_SOURCES}, optimised, with the outputs deployment needs. */
function compilerInput(): string {
  const sources = Object.fromEntries(
    Object.values(CONTRACT_SOURCES).map((file) => [file, { content: readFileSync(path.join(__dirname, 'contracts', file), 'utf8') }]),
  );
  return JSON.stringify({
    language: 'Solidity',
    sources,
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  });
}

interface SolcOutput {
  errors?: Array<{ severity: string; formattedMessage: string }>;
  contracts: Record<
    string,
    Record<string, { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >;
}

/** Compiles the project's contracts with solc from npm; throws with the compiler's messages on any error or warning. */
export function compileContracts(): ContractArtifacts {
  const output = JSON.parse(solc.compile(compilerInput())) as SolcOutput;
  const problems = (output.errors ?? []).filter((e) => e.severity !== 'info');
  if (problems.length > 0) throw new Error(`solc ${solc.version()}:\n${problems.map((e) => e.formattedMessage).join('\n')}`);
  const contracts = Object.fromEntries(
    Object.entries(CONTRACT_SOURCES).map(([name, file]) => {
      const compiled = output.contracts[file][name];
      return [
        name,
        { abi: compiled.abi, bytecode: `0x${compiled.evm.bytecode.object}`, deployedBytecode: `0x${compiled.evm.deployedBytecode.object}` },
      ];
    }),
  );
  return contractArtifactsSchema.parse({ compiler: solc.version(), contracts });
}

// `npx tsx scripts/x402/compile-contracts.ts` rewrites the committed artifacts after a change to a contract.
if (require.main === module) {
  writeFileSync(ARTIFACTS_FILE, `${JSON.stringify(compileContracts(), null, 2)}\n`);
}
