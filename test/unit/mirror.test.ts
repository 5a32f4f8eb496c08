import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { fileImports, sourcesUnder } from '../support/import-graph';
import { ROOT } from '../support/spawn-process';

/**
 * Tests mirror the sources: the unit test of `<dir>/<name>.ts` is `test/unit/<dir>/<name>.test.ts`.
 *
 * A module of api/, worker/ or shared/ has logic when its syntax tree holds a function body: a function
 * declaration or expression, an arrow function, a method, a constructor or an accessor. Modules of only types,
 * interfaces and constants have none and need no test. A module with logic and no mirrored test has an entry in
 * `covered-by-suites.json`: the suites that exercise it and why it has no unit test of its own.
 */
const PRODUCT_DIRS = ['api', 'worker', 'shared'];
const UNIT = path.join(ROOT, 'test', 'unit');
const LIST_FILE = path.join(UNIT, 'covered-by-suites.json');

/** Unit tests that check the repository or a rule across many modules, so mirror none (reason beside each). */
const CROSS_CUTTING: Record<string, string> = {
  'doctor-rules.test.ts': "the doctor's rules across its check, context, options and report modules",
  'layers.test.ts': 'the import rules between the layers of shared/ and the product folders',
  'lockfile.test.ts': 'package-lock.json of the repository and of the bench package',
  'mirror.test.ts': 'this check',
  'node-range.test.ts': 'the engines.node reader of the Dockerfile test (a test helper)',
  'openapi-check.test.ts': 'the OpenAPI response checker every HTTP test uses (a test helper)',
  'positional-parameters.test.ts': 'no function of the product takes more than 4 positional parameters',
  'registry-additions.test.ts': 'the registry-deriving suites, run with operations added to the registry',
  'repo-boundary.test.ts': 'no path of the repository climbs out of it',
  'tool-schema-portability.test.ts': 'every published schema is portable across MCP clients',
  'whole-suite.test.ts': "the whole suite's mocha configuration, test/support/whole-suite.js (plain JavaScript)",
};

/** One entry of `covered-by-suites.json`. */
interface Coverage {
  suites: string[];
  why: string;
}

const relative = (file: string) => path.relative(ROOT, file).split(path.sep).join('/');
const mirrorOf = (module: string) => path.join(UNIT, module.replace(/\.ts$/, '.test.ts'));
const moduleOf = (test: string) =>
  relative(test)
    .replace(/^test\/unit\//, '')
    .replace(/\.test\.ts$/, '.ts');

/** True when `source` holds a function body anywhere (the rule stated above). */
function hasLogic(source: string): boolean {
  const visit = (node: ts.Node): boolean =>
    (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) || ts.forEachChild(node, visit) === true;
  return visit(ts.createSourceFile('module.ts', source, ts.ScriptTarget.ES2022, true));
}

const modules = PRODUCT_DIRS.flatMap((dir) => sourcesUnder(path.join(ROOT, dir)));
const withLogic = modules
  .filter((file) => hasLogic(readFileSync(file, 'utf8')))
  .map(relative)
  .sort();
const unitTests = sourcesUnder(UNIT).filter((file) => file.endsWith('.test.ts'));
const listed: Record<string, Coverage> = JSON.parse(readFileSync(LIST_FILE, 'utf8'));
/**
 * The modules the operations registry imports: each operation is checked by the registry-wide suites
 * (docs/building-operations.md, "What the tests check of every operation"), so an operation a user adds
 * needs no entry of its own to pass this check.
 */
const REGISTRY = path.join(ROOT, 'shared', 'contract', 'operations', 'registry.ts');
const registryModules = new Set((fileImports([REGISTRY]).get(REGISTRY) ?? []).map(relative));

/** `lines` as one message, one file a line, for a failure that names every file at once. */
const report = (title: string, lines: string[]) => `${title} (${lines.length}):\n  ${lines.join('\n  ')}\n`;

describe('unit tests mirror the sources (test/unit/<dir>/<name>.test.ts for <dir>/<name>.ts)', () => {
  it('a module of api/, worker/ or shared/ with logic and no mirrored test has an entry in covered-by-suites.json, or is an operation the registry lists', () => {
    const missing = withLogic.filter((module) => !existsSync(mirrorOf(module)) && !(module in listed) && !registryModules.has(module));
    expect(missing, report('modules with logic without a mirrored unit test or a list entry', missing)).to.deep.equal([]);
  });

  it('an entry of covered-by-suites.json names an existing module with logic that has no mirrored test', () => {
    const stale = Object.keys(listed).flatMap((module) => {
      if (!withLogic.includes(module)) return [`${module}: no such module with logic in ${PRODUCT_DIRS.join('/, ')}/`];
      return existsSync(mirrorOf(module)) ? [`${module}: has ${relative(mirrorOf(module))} now; drop the entry`] : [];
    });
    expect(stale, report('stale entries in test/unit/covered-by-suites.json', stale)).to.deep.equal([]);
  });

  it('an entry of covered-by-suites.json says why and names suites, each an existing test file', () => {
    const wrong = Object.entries(listed).flatMap(([module, { suites, why }]) => [
      ...(typeof why === 'string' && why.trim() !== '' ? [] : [`${module}: no reason given`]),
      ...(Array.isArray(suites) && suites.length > 0 ? [] : [`${module}: no suite named`]),
      ...(suites ?? [])
        .filter((suite) => !suite.endsWith('.test.ts') || !existsSync(path.join(ROOT, suite)))
        .map((suite) => `${module}: ${suite} is not an existing test file`),
    ]);
    expect(wrong, report('wrong entries in test/unit/covered-by-suites.json', wrong)).to.deep.equal([]);
  });

  it('a test file under test/unit mirrors an existing module, the cross-cutting checks listed here aside', () => {
    const orphans = unitTests
      .filter((test) => !(relative(test).replace(/^test\/unit\//, '') in CROSS_CUTTING))
      .filter((test) => !existsSync(path.join(ROOT, moduleOf(test))))
      .map((test) => `${relative(test)}: no module ${moduleOf(test)}`);
    const gone = Object.keys(CROSS_CUTTING).filter((name) => !existsSync(path.join(UNIT, name)));
    expect(orphans, report('unit tests that mirror no module', orphans)).to.deep.equal([]);
    expect(gone, report('cross-cutting checks listed in mirror.test.ts that no longer exist', gone)).to.deep.equal([]);
  });

  it('a mirrored unit test imports the module it is named after', () => {
    const mirrored = unitTests.filter((test) => existsSync(path.join(ROOT, moduleOf(test))));
    const imports = fileImports(mirrored);
    const blind = mirrored
      .filter((test) => !imports.get(test)?.includes(path.join(ROOT, moduleOf(test))))
      .map((test) => `${relative(test)} does not import ${moduleOf(test)}`);
    expect(blind, report('mirrored unit tests that do not load their module', blind)).to.deep.equal([]);
  });

  it('the rule for logic: a function body counts, types, interfaces and constants alone do not', () => {
    expect(hasLogic('export interface A { f(): void }\nexport type B = (x: number) => string;\nexport const C = 3;')).to.equal(false);
    expect(hasLogic('export declare function f(): void;\nexport abstract class D { abstract g(): void }')).to.equal(false);
    for (const source of [
      'export function f() {}',
      'export const g = () => 1;',
      'export class E { constructor() {} }',
      'const o = { get x() { return 1; } };',
    ])
      expect(hasLogic(source), source).to.equal(true);
  });
});
