import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { compileContracts } from '../../scripts/x402/compile-contracts';
import { ARTIFACTS_FILE, contractArtifactsSchema } from '../../scripts/x402/contract-artifacts';

// The stands deploy the committed compiler output rather than compiling at each start; this keeps it honest.
describe('x402 kit: the committed contract artifacts', function () {
  // solc's WebAssembly build takes a few seconds of one core to load and compile.
  this.timeout(120_000);

  it("are exactly what solc from npm makes of the project's Solidity today (else: npx tsx scripts/x402/compile-contracts.ts)", () => {
    const committed = contractArtifactsSchema.parse(JSON.parse(readFileSync(ARTIFACTS_FILE, 'utf8')));
    expect(compileContracts()).to.deep.equal(committed);
  });
});
