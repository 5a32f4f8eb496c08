import { expect } from 'chai';
import { ConfigError } from '../../../../../shared/platform/config/config-error';
import { loadConfigOrExit, orExitOnConfigError } from '../../../../../shared/platform/config/load-config-or-exit';

/** Thrown by the stand-in for process.exit, so the code after the exit is not run. */
class Exited extends Error {
  constructor(readonly code: number | undefined) {
    super(`exit ${code}`);
  }
}

/** Runs `work` with process.exit and stderr captured; returns what was written and the exit code, if any. */
function captured(work: () => unknown): { stderr: string; code?: number; value?: unknown } {
  const exit = process.exit;
  const write = process.stderr.write;
  let stderr = '';
  process.exit = ((code?: number) => {
    throw new Exited(code);
  }) as typeof process.exit;
  process.stderr.write = ((chunk: string) => {
    stderr += chunk;
    return true;
  }) as typeof process.stderr.write;
  try {
    const value = work();
    return { stderr, value };
  } catch (error) {
    if (error instanceof Exited) return { stderr, code: error.code };
    throw error;
  } finally {
    process.exit = exit;
    process.stderr.write = write;
  }
}

describe('refusing to start on an invalid configuration', () => {
  it('a loader that succeeds: its value, nothing written', () => {
    expect(captured(() => orExitOnConfigError('worker', () => 7))).to.deep.equal({ stderr: '', value: 7 });
  });

  it('a ConfigError: every variable named with its reason on stderr, then exit 78', () => {
    const problems = [
      { name: 'LINK_SECRET', reason: 'is required' },
      { name: 'PORT', reason: 'must be a whole number between 0 and 65535' },
    ];
    const { stderr, code } = captured(() =>
      orExitOnConfigError('api', () => {
        throw new ConfigError(problems);
      }),
    );
    expect(code).to.equal(78);
    expect(stderr).to.equal(
      'connector api: refusing to start, invalid configuration:\n  - LINK_SECRET is required\n  - PORT must be a whole number between 0 and 65535\n',
    );
  });

  it('any other error: thrown as it is, no exit', () => {
    const bug = new Error('bug');
    expect(() =>
      captured(() =>
        orExitOnConfigError('api', () => {
          throw bug;
        }),
      ),
    ).to.throw(bug);
  });

  it('loadConfigOrExit with the required variables missing: exits 78 naming them, never a value', () => {
    const { stderr, code } = captured(() => loadConfigOrExit({ PUBLIC_URL: 'https://api.example.com' }, 'api'));
    expect(code).to.equal(78);
    expect(stderr).to.contain('CONNECTOR_SECRET').and.contain('LINK_SECRET');
    expect(stderr).to.not.contain('https://api.example.com');
  });
});
