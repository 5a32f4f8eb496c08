import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/spawn-process';
import { type PrintedDiagnostics, printedDiagnostics } from './support/printed-types';
import { variantSources, type WorkedExampleFile, workedExampleSources } from './support/worked-example';

/*
 * The code docs/building-operations.md prints compiles as printed: the worked example, and its report job as
 * "Events of your own" changes it. One program checks them all (test/docs/support/printed-types.ts); what the
 * examples do when they run is told by test/docs/worked-example.test.ts and test/docs/events-example.test.ts.
 */

/** The events variant with the emitted type misspelt: a type the job does not declare. */
function misspeltEmit(files: readonly WorkedExampleFile[]): WorkedExampleFile[] {
  return files.map((f) =>
    f.file.endsWith('write-report.ts') ? { ...f, code: f.code.replace("emit('report.ready'", "emit('report.readdy'") } : f,
  );
}

describe('the code of docs/building-operations.md type-checks as printed, against the repository with its compiler options', function () {
  // A program over what the blocks import, viem's types among them: seconds alone, a minute or more on a loaded CI.
  this.timeout(240_000);
  const worked = workedExampleSources();
  const events = variantSources('events-example');
  let diagnostics: PrintedDiagnostics<'worked' | 'events' | 'misspelt'>;
  before(function () {
    this.timeout(240_000);
    diagnostics = printedDiagnostics({ worked, events, misspelt: misspeltEmit(events) });
  });

  it('the blocks name files the repository does not have, so each is checked as new', () => {
    const named = [...worked, ...events].map(({ file }) => file);
    expect(named.filter((file) => existsSync(path.join(ROOT, file)))).to.deep.equal([]);
  });

  it('the worked example compiles with no diagnostic, each block as the file it names (the processor typed by its schemas)', () => {
    expect(worked.find(({ file }) => file.endsWith('write-report.ts'))?.code).to.match(/Promise<Report>/);
    expect(diagnostics.worked).to.deep.equal([]);
  });

  it('"Events of your own": the report job compiles in place of the worked example’s, and its emit is typed by the declaration (a type it does not declare does not compile)', () => {
    expect(events.find(({ file }) => file.endsWith('write-report.ts'))?.code).to.include("events: { 'report.ready': REPORT_READY }");
    expect(diagnostics.events).to.deep.equal([]);
    expect(diagnostics.misspelt.join('\n')).to.include('"report.readdy"');
  });
});
