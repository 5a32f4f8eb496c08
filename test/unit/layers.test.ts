import path from 'node:path';
import { expect } from 'chai';
import { OPERATIONS } from '../../shared/contract/operations/registry';
import { PAID_JOBS } from '../../shared/domain/processors/paid-jobs';
import { findForbiddenImports } from '../support/import-boundary';
import { fileImports, findCycles, groupGraph, importClosure, sourcesUnder } from '../support/import-graph';
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

  it('the worker loads processors, never the REST contract (routes, handlers, descriptions) nor api/', () => {
    const loaded = [...importClosure(path.join(ROOT, 'worker', 'main.ts'))].map((file) => path.relative(ROOT, file));
    expect(loaded, 'worker closure').to.include(path.join('shared', 'domain', 'processors', 'paid-jobs.ts'));
    expect(
      loaded.filter((file) => file.startsWith(path.join('shared', 'contract') + path.sep) || file.startsWith(`api${path.sep}`)),
    ).to.deep.equal([]);
  });
});

describe('paid jobs and the operations that accept them', () => {
  it("every paid operation's job is in PAID_JOBS under the operation's id, and every job in PAID_JOBS has its operation", () => {
    const paid = OPERATIONS.filter((operation) => operation.job !== undefined);
    expect(paid.length, 'paid operations').to.be.greaterThan(0);
    for (const operation of paid) {
      expect(PAID_JOBS, operation.operationId).to.include(operation.job);
      expect(operation.job!.operationId).to.equal(operation.operationId);
    }
    expect(PAID_JOBS.map((job) => job.operationId)).to.have.members(paid.map((operation) => operation.operationId));
  });
});
