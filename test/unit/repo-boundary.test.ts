import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { findOutsidePaths, findOutsideShellPaths } from '../support/outside-paths';
import { ROOT } from '../support/spawn-process';

/** Tracked (and untracked, not ignored) files of the repository, as absolute paths. */
function repoFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return out.split('\n').filter(Boolean).map((f) => path.join(ROOT, f));
}

describe('repository boundary', () => {
  it('no test, script, benchmark or source file names a path above the repository root', () => {
    const files = repoFiles();
    const code = files.filter((f) => /\.(ts|js)$/.test(f) && !f.includes(`${path.sep}node_modules${path.sep}`));
    const shell = files.filter((f) => f.endsWith('.sh') || f.endsWith(path.join('.ci', 'run')));
    expect(code.length, 'source files scanned').to.be.greaterThan(50);
    expect(shell, 'shell scripts scanned').to.include(path.join(ROOT, '.ci', 'run'));
    expect([...findOutsidePaths(ROOT, code), ...findOutsideShellPaths(ROOT, shell)]).to.deep.equal([]);
  });

  it('the scan reports path.resolve through an imported root that climbs out, and a "../" literal', () => {
    const root = '/repo';
    const files: Record<string, string> = {
      '/repo/test/support/roots.ts': "import path from 'node:path';\nexport const repoRoot = path.resolve(__dirname, '..', '..');\n",
      '/repo/test/k8s/a.test.ts': [
        "import path from 'node:path';",
        "import { repoRoot } from '../support/roots';",
        "import { x } from '../../shared/x';",
        "const inside = path.join(repoRoot, 'test', 'schemas', 'a.json');",
        "const outside = path.resolve(repoRoot, '..', 'sibling', 'schemas', 'a.json');",
        "readFileSync('../sibling/CONTRACT.md');",
      ].join('\n'),
    };
    const found = findOutsidePaths(root, Object.keys(files), (f) => files[f]);
    expect(found).to.deep.equal([
      { file: 'test/k8s/a.test.ts', line: 5, resolved: '/sibling/schemas/a.json' },
      { file: 'test/k8s/a.test.ts', line: 6, resolved: '/sibling/CONTRACT.md' },
    ]);
  });

  it('the shell scan allows cd "$(dirname "$0")/.." and reports a path into a sibling folder', () => {
    const script = 'cd "$(dirname "$0")/.."\ncp ../sibling/x.json test/\nls ./test # not ../here\n';
    const found = findOutsideShellPaths('/repo', ['/repo/.ci/run'], () => script);
    expect(found).to.deep.equal([{ file: '.ci/run', line: 2, resolved: 'cp ../sibling/x.json test/' }]);
  });
});
