// `tsx scripts/build-cards.ts <dist>` as a template user has it after adding the trial's operations to the
// registry itself (test/support/inject-extra-operations.ts): the build's card step, run on that registry.
import './inject-extra-operations';
import path from 'node:path';
import { buildCards } from '../../scripts/build-cards';

const dist = process.argv[2];
if (!dist) throw new Error('name the folder to build into');
buildCards(path.resolve(dist)).then(
  (built) => process.stdout.write(`${JSON.stringify(built.map(({ uri, file }) => ({ uri, file })))}\n`),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
