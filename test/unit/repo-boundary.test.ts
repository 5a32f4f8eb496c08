import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { findForbiddenImports } from '../support/import-boundary';
import { findOutsidePaths, findOutsideShellPaths } from '../support/outside-paths';
import { ROOT } from '../support/spawn-process';

/** Tracked (and untracked, not ignored) files of the repository, as absolute paths. */
function repoFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' });
  return out
    .split('\n')
    .filter(Boolean)
    .map((f) => path.join(ROOT, f));
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

  it('nothing under api/ imports the worker or anything else outside api/ and shared/', () => {
    const api = repoFiles().filter((f) => f.startsWith(path.join(ROOT, 'api') + path.sep) && /\.(ts|js)$/.test(f));
    expect(api.length, 'api files scanned').to.be.greaterThan(20);
    expect(findForbiddenImports(ROOT, api, [path.join(ROOT, 'api'), path.join(ROOT, 'shared')])).to.deep.equal([]);
  });

  it('the import scan reports a static import, a re-export, an import() and a require() of worker/, and nothing else', () => {
    const files: Record<string, string> = {
      '/repo/api/a.ts': [
        "import { startApi } from './start-api';",
        "import { Metrics } from '../shared/platform/metrics/metrics';",
        "import express from 'express';",
        "import { createJobWorker } from '../worker/job-worker';",
        "export { startWorker } from '../worker';",
        "const lazy = () => import('../worker/start-worker');",
        "const old = require('../worker/main');",
        "// import { x } from '../worker/in-a-comment';",
      ].join('\n'),
      '/repo/api/routes/b.ts': "import type { Job } from '../../worker/job-worker';\nimport { ok } from '../../shared/x';\n",
    };
    const found = findForbiddenImports('/repo', Object.keys(files), ['/repo/api', '/repo/shared'], (f) => files[f]);
    // As "file:line specifier" strings, so that no literal here starts with "../" (the path scan above reads this file too).
    expect(found.map(({ file, line, specifier }) => `${file}:${line} ${specifier}`)).to.deep.equal([
      'api/a.ts:4 ../worker/job-worker',
      'api/a.ts:5 ../worker',
      'api/a.ts:6 ../worker/start-worker',
      'api/a.ts:7 ../worker/main',
      'api/routes/b.ts:1 ../../worker/job-worker',
    ]);
  });
});
