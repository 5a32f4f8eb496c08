import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { PAID_JOBS, paidJobsOf } from '../../shared/contract/operations/paid-jobs';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { EXTRA_OPERATIONS, withOperations } from '../support/extra-operations';
import { findForbiddenImports, moduleSpecifiers } from '../support/import-boundary';
import { fileGraph, fileImports, findCycles, groupGraph, importClosure, sourcesUnder } from '../support/import-graph';
import { ROOT } from '../support/spawn-process';

const SHARED = path.join(ROOT, 'shared');

/** Each layer of shared/ and the layers it may import from (itself included): a layer only looks down. */
const LAYERS: Readonly<Record<string, readonly string[]>> = {
  platform: ['platform'],
  domain: ['domain', 'platform'],
  adapters: ['adapters', 'domain', 'platform'],
  contract: ['contract', 'domain', 'platform'],
};

const relativeToShared = (file: string) => path.relative(SHARED, file);
const inShared = (file: string) => file.startsWith(SHARED + path.sep);
/** A file's layer: the first folder under shared/. */
const layerOf = (file: string) => (inShared(file) ? relativeToShared(file).split(path.sep)[0] : undefined);
/** A file's folder under shared/ (e.g. `domain/jobs`). */
const folderOf = (file: string) => (inShared(file) ? path.dirname(relativeToShared(file)) : undefined);

describe('the layers of shared/', () => {
  const files = sourcesUnder(SHARED);
  const imports = fileImports(files);

  it('every source of shared/ sits in one of the named layers, none at its top', () => {
    expect(files.length, 'shared sources scanned').to.be.greaterThan(100);
    expect(files.map(layerOf).filter((layer) => !(layer! in LAYERS))).to.deep.equal([]);
  });

  it('no cycle between layers, nor between any two folders, type-only imports included', () => {
    expect(findCycles(groupGraph(imports, layerOf)), 'layers').to.deep.equal([]);
    expect(findCycles(groupGraph(imports, folderOf)), 'folders').to.deep.equal([]);
  });

  for (const [layer, allowed] of Object.entries(LAYERS)) {
    it(`shared/${layer} imports only from ${allowed.map((name) => `shared/${name}`).join(', ')}`, () => {
      const own = files.filter((file) => layerOf(file) === layer);
      expect(own.length, `${layer} sources`).to.be.greaterThan(0);
      const dirs = allowed.map((name) => path.join(SHARED, name));
      expect(findForbiddenImports(ROOT, own, dirs)).to.deep.equal([]);
    });
  }

  it('the cycle finder reports a cycle through three folders, and a graph without one as clean', () => {
    const graph = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    expect(findCycles(graph)).to.deep.equal([['a', 'b', 'c', 'a']]);
    graph.set('c', new Set());
    expect(findCycles(graph)).to.deep.equal([]);
  });

  it('the runtime closure leaves out only what TypeScript erases: type imports and type exports, not a mixed import', () => {
    const source = [
      "import type { A } from './a';",
      "import { type B } from './b';",
      "import { type C, d } from './c';",
      "export type { E } from './e';",
      "import f from './f';",
    ].join('\n');
    const specifiers = (runtimeOnly: boolean) =>
      moduleSpecifiers(ts.createSourceFile('/x.ts', source, ts.ScriptTarget.ES2022, true), { runtimeOnly }).map((literal) => literal.text);
    expect(specifiers(false)).to.deep.equal(['./a', './b', './c', './e', './f']);
    expect(specifiers(true)).to.deep.equal(['./c', './f']);
  });

  it('the worker takes its jobs from the registry and loads no route, no MCP or description generator, no api/, express or MCP SDK', () => {
    // What the compiled worker loads: type-only imports are erased (a handler's type names the services).
    const closure = [...importClosure(path.join(ROOT, 'worker', 'main.ts'), undefined, true)];
    const loaded = closure.map((file) => path.relative(ROOT, file));
    // One registration: the worker's list is derived from the operations registry.
    expect(loaded, 'worker closure').to.include(path.join('shared', 'contract', 'operations', 'paid-jobs.ts'));
    expect(loaded, 'worker closure').to.include(path.join('shared', 'contract', 'operations', 'registry.ts'));
    const forbidden = [
      `api${path.sep}`,
      path.join('shared', 'contract', 'description') + path.sep,
      path.join('shared', 'contract', 'mcp', 'tool-definitions.ts'),
      path.join('shared', 'contract', 'mcp', 'inline-schema.ts'),
      path.join('shared', 'contract', 'mcp', 'portable-schema.ts'),
    ];
    expect(loaded.filter((file) => forbidden.some((prefix) => file.startsWith(prefix)))).to.deep.equal([]);
    const packages = new Set(
      closure.flatMap((file) =>
        moduleSpecifiers(ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true), { runtimeOnly: true })
          .map((literal) => literal.text)
          .filter((specifier) => !specifier.startsWith('.')),
      ),
    );
    expect(packages.has('zod'), 'the job schemas are loaded').to.equal(true);
    expect([...packages].filter((name) => /^(express|express-openapi-validator|helmet|@modelcontextprotocol\/)/.test(name))).to.deep.equal(
      [],
    );
  });
});

/** The folders of the product, whose files may not import each other in a circle. */
const PRODUCT = ['api', 'worker', 'shared', 'doctor', 'scripts'];

describe('file-level imports', () => {
  it('no file of api/, worker/, shared/, doctor/ or scripts/ comes back to itself through its imports, type-only ones included', () => {
    const files = PRODUCT.flatMap((dir) => sourcesUnder(path.join(ROOT, dir)));
    expect(files.length, 'sources scanned').to.be.greaterThan(200);
    const cycles = findCycles(fileGraph(files)).map((cycle) => cycle.map((file) => path.relative(ROOT, file)).join(' -> '));
    expect(cycles).to.deep.equal([]);
  });

  it('the cycle finder names a two-file, a three-file and a self-import cycle, each once, and passes a diamond', () => {
    const graph = new Map<string, Set<string>>([
      ['a', new Set(['b'])],
      ['b', new Set(['a'])],
      // d leads into x's cycle from outside it: the cycle is named, d is not part of it.
      ['d', new Set(['x'])],
      ['x', new Set(['y'])],
      ['y', new Set(['z'])],
      ['z', new Set(['x'])],
      // Two ways to t are no cycle; t imports nothing and is no key of the graph.
      ['p', new Set(['q', 'r'])],
      ['q', new Set(['t'])],
      ['r', new Set(['t'])],
      ['s', new Set(['s'])],
    ]);
    expect(findCycles(graph)).to.deep.equal([
      ['a', 'b', 'a'],
      ['x', 'y', 'z', 'x'],
      ['s', 's'],
    ]);
    for (const [from, to] of [
      ['b', 'a'],
      ['z', 'x'],
      ['s', 's'],
    ])
      graph.get(from)!.delete(to);
    expect(findCycles(graph)).to.deep.equal([]);
  });

  describe("on files that name only each other's types", () => {
    let dir: string;
    const file = (name: string) => path.join(dir, `${name}.ts`);
    before(() => {
      dir = mkdtempSync(path.join(tmpdir(), 'file-cycles-'));
      writeFileSync(file('a'), "import type { B } from './b';\nexport interface A {\n  b?: B;\n}\n");
      writeFileSync(file('b'), "export type B = typeof import('./c');\n");
      writeFileSync(file('c'), "export type { A } from './a';\n");
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    it('a type import, an import() type and a type re-export close a cycle the compiled code does not have', () => {
      const files = ['a', 'b', 'c'].map(file);
      expect(findCycles(fileGraph(files))).to.deep.equal([[file('a'), file('b'), file('c'), file('a')]]);
      expect([...fileImports(files, undefined, true).values()].flat(), 'runtime edges').to.deep.equal([]);
    });
  });
});

describe('paid jobs and the operations that accept them', () => {
  it("the worker's list is every paid operation's job under the operation's id, in registry order, derived from the registry", () => {
    const paid = OPERATIONS.filter((operation) => operation.job !== undefined);
    expect(paid.length, 'paid operations').to.be.greaterThan(0);
    expect(PAID_JOBS).to.deep.equal(paid.map((operation) => operation.job));
    for (const [extended] of [[withOperations(OPERATIONS, EXTRA_OPERATIONS)]]) {
      expect(paidJobsOf(extended).map((job) => job.operationId)).to.deep.equal(
        extended.filter((operation) => operation.job).map((operation) => operation.operationId),
      );
    }
  });

  it('an operation whose job names another operation, or two operations with one job, are refused', () => {
    const createJob = OPERATIONS.find((operation) => operation.operationId === 'createJob')!;
    expect(() => paidJobsOf([{ ...createJob, operationId: 'other' }])).to.throw(/other: its job is declared for createJob/);
    expect(() => paidJobsOf([createJob, createJob])).to.throw(/two operations run the job createJob/);
  });
});
