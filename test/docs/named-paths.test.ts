import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/spawn-process';
import {
  commentsOf,
  filesUnder,
  latestChangelogSection,
  luaComments,
  missingPaths,
  namedFileNames,
  namedPaths,
  sourceComments,
  withoutLinkTargets,
} from './support/named-paths';

/** The folders whose source comments are read. */
const SOURCE_FOLDERS = ['api', 'worker', 'shared', 'doctor', 'scripts', 'test'];

/**
 * Every Markdown page of the repository but the changelog, of which only the latest section is read: older ones
 * record files since moved.
 */
function pages(): string[] {
  return filesUnder(ROOT, '.', ['.md']).filter((file) => file !== 'CHANGELOG.md');
}

/** Paths and file names the source comments name that do not exist, and how many they name. */
function missingInSources(): { missing: string[]; named: number; missingNames: string[]; names: number } {
  const fileNames = new Set(filesUnder(ROOT, '.', ['.ts', '.lua', '.md']).map((file) => path.basename(file)));
  let named = 0;
  let names = 0;
  const missingNames: string[] = [];
  const missing = SOURCE_FOLDERS.flatMap((folder) => filesUnder(ROOT, folder, ['.ts', '.js', '.mjs', '.lua'])).flatMap((file) =>
    commentsOf(path.join(ROOT, file)).flatMap((comment) => {
      const found = namedPaths(comment.text, comment.line);
      const alone = namedFileNames(comment.text, comment.line);
      named += found.length;
      names += alone.length;
      missingNames.push(...alone.filter((name) => !fileNames.has(name.path)).map((name) => `${file}:${name.line}: ${name.path}`));
      return missingPaths(ROOT, file, found);
    }),
  );
  return { missing, named, missingNames, names };
}

/** Paths the pages name that do not exist, and how many they name. */
function missingInPages(): { missing: string[]; named: number } {
  let named = 0;
  const check = (file: string, text: string, firstLine = 1) => {
    const found = namedPaths(withoutLinkTargets(text), firstLine);
    named += found.length;
    return missingPaths(ROOT, file, found);
  };
  const changelog = latestChangelogSection(readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8'));
  const missing = [
    ...pages().flatMap((file) => check(file, readFileSync(path.join(ROOT, file), 'utf8'))),
    ...check('CHANGELOG.md', changelog.text, changelog.firstLine),
  ];
  return { missing, named };
}

describe('the repository paths named in comments and pages', () => {
  it('every path a comment of api/, worker/, shared/, doctor/, scripts/ or test/ names exists, and every file named alone', () => {
    const { missing, named, missingNames, names } = missingInSources();
    expect(named, 'paths named in comments').to.be.greaterThan(100);
    expect(names, 'file names named alone in comments').to.be.greaterThan(20);
    expect({ missing, missingNames }).to.deep.equal({ missing: [], missingNames: [] });
  });

  it('every path a Markdown page names outside its links exists (of the changelog, its latest section)', () => {
    const { missing, named } = missingInPages();
    expect(named, 'paths named in pages').to.be.greaterThan(100);
    expect(missing).to.deep.equal([]);
  });

  it('the checker takes paths from a top folder, ending in an extension or a slash, leaves patterns alone, and finds .js by .ts', () => {
    const text = [
      'See worker/job-endings.ts, docs/decisions/ and `test/unit/x.test.ts`.',
      'Not ../lib/x.ts, dist/shared/x.js, test/**/*.ts, shared/.../x.ts, docs/<name>.md or shared/platform here.',
    ].join('\n');
    expect(namedPaths(text, 10)).to.deep.equal([
      { path: 'worker/job-endings.ts', line: 10 },
      { path: 'docs/decisions/', line: 10 },
      { path: 'test/unit/x.test.ts', line: 10 },
    ]);
    expect(missingPaths(ROOT, 'a.ts', namedPaths(text))).to.deep.equal(['a.ts:1: worker/job-endings.ts', 'a.ts:1: test/unit/x.test.ts']);
    expect(
      namedFileNames('job-endings.ts and claim-12.lua, not worker/x.ts, x.test.ts.map or README.md').map((name) => name.path),
    ).to.deep.equal(['job-endings.ts', 'claim-12.lua']);
    const built = namedPaths('api/main.js, api/gone.js and bench/dist/x.js');
    expect(missingPaths(ROOT, 'b.ts', built)).to.deep.equal(['b.ts:1: api/gone.js']);
  });

  it('the checker reads only comments of a source file, and pages without their link targets', () => {
    const source = [
      '// Named: api/a.ts.',
      "const x = 'api/b.ts'; /* and api/c.ts */",
      '/**',
      ' * api/d.ts',
      ' */',
      'f(); // api/e.ts',
      'const r = /\\/\\/ api\\/f.ts/, q = a / b; // api/g.ts',
      'const s = `${{ a: 1 }.a} // api/h.ts`; // api/i.ts',
    ].join('\n');
    const found = sourceComments(source).flatMap((comment) => namedPaths(comment.text, comment.line));
    expect(found.map((named) => `${named.line} ${named.path}`)).to.deep.equal([
      '1 api/a.ts',
      '2 api/c.ts',
      '4 api/d.ts',
      '6 api/e.ts',
      '7 api/g.ts',
      '8 api/i.ts',
    ]);
    expect(luaComments("-- api/a.lua\nlocal x = 'api/b.lua'\n--[[\n  api/c.lua\n]]").map((comment) => comment.line)).to.deep.equal([1, 3]);
    const page = '[docs/a.md](docs/b.md) and docs/c.md\n<!-- worked-example: docs/d.md -->';
    expect(namedPaths(withoutLinkTargets(page)).map((named) => named.path)).to.deep.equal(['docs/a.md', 'docs/c.md']);
    expect(latestChangelogSection('# Log\n\n## [Unreleased]\n- docs/a.md\n## [0.1.0]\n- docs/b.md')).to.deep.equal({
      text: '## [Unreleased]\n- docs/a.md',
      firstLine: 3,
    });
  });
});
