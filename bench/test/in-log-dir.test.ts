import { existsSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { inLogDir } from '../connector-processes';

/** The bench's temporary log directories of `name` that exist now. */
function logDirs(name: string): string[] {
  return readdirSync(os.tmpdir())
    .filter((entry) => entry.startsWith(`connector-${name}-`))
    .map((entry) => path.join(os.tmpdir(), entry));
}

describe('inLogDir (the bench scripts’ temporary log directory)', () => {
  it('removes the directory after a run that succeeds', async () => {
    let seen = '';
    await inLogDir('log-dir-test-pass', async (logDir) => {
      seen = logDir;
      expect(existsSync(logDir)).to.equal(true);
    });
    expect(seen).to.not.equal('');
    expect(existsSync(seen)).to.equal(false);
  });

  it('keeps the directory of a run that fails, names it on stderr and passes the failure on', async () => {
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as typeof process.stderr.write;
    let seen = '';
    try {
      const failure = await inLogDir('log-dir-test-fail', async (logDir) => {
        seen = logDir;
        throw new Error('the load failed');
      }).catch((error: unknown) => error as Error);
      expect((failure as Error).message).to.equal('the load failed');
      expect(existsSync(seen), 'the failed run’s directory').to.equal(true);
    } finally {
      process.stderr.write = write;
      for (const dir of logDirs('log-dir-test-fail')) rmSync(dir, { recursive: true, force: true });
    }
    expect(written).to.deep.equal([`the processes' logs are kept in ${seen}\n`]);
  });
});
