import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import ts from 'typescript';
import { pageCardsOf } from '../../scripts/build-cards';
import { builtCardFile } from '../../shared/contract/cards/page-card';
import { repoRoot } from '../support/helm';
import { moduleSpecifiers } from '../support/import-boundary';
import { dockerfileStages, lineage } from './support/dockerfile';

// The image ships the product only: dist/ (what the runtime stage copies) holds the code the API, the
// worker and the operators' CLI (connector-doctor) load, and the files they read, nothing else: no bench,
// test kit, build script or oauth-client. npm test builds before it runs this.

const dist = path.join(repoRoot, 'dist');
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));
const build = JSON.parse(readFileSync(path.join(repoRoot, 'tsconfig.build.json'), 'utf8')) as { files: string[]; include?: string[] };
const stages = dockerfileStages(readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8'));

/** What tsc emits for a module that only declares types: the module marker and no statement. */
const EMPTY_MODULE = '"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n';

/** The line tsc appends when it writes source maps (`npm run coverage` builds with them, for c8). */
const SOURCE_MAP_COMMENT = /\/\/# sourceMappingURL=\S+$/;

/** The compiled file a source map belongs to; the file itself when it is not a map. */
function mappedFile(file: string): string {
  return file.endsWith('.js.map') ? file.slice(0, -'.map'.length) : file;
}

/** Every file under `dir`, relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(full).map((file) => path.join(entry.name, file)) : [entry.name];
  });
}

/** The compiled file a relative `require` or `import()` of `from` loads; undefined for a package. */
function resolveCompiled(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), specifier);
  const found = [base, `${base}.js`, path.join(base, 'index.js')].find((file) => existsSync(file) && statSync(file).isFile());
  if (!found) throw new Error(`${path.relative(dist, from)} loads ${specifier}, which is not in dist/`);
  return found;
}

/** The files of dist/ that `entries` load at run time, themselves included (lazy `require`s too). */
function runtimeClosure(entries: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const pending = [...entries];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
    for (const literal of moduleSpecifiers(sf)) {
      const target = resolveCompiled(file, literal.text);
      if (target) pending.push(target);
    }
  }
  return seen;
}

/** The compiled path of a source entry (`api/main.ts` → `<dist>/api/main.js`). */
function compiled(entry: string): string {
  return path.join(dist, entry.replace(/\.ts$/, '.js'));
}

describe('the image ships the product only', function () {
  before(function () {
    expect(existsSync(compiled('api/main.ts')), 'dist/ is built (npm run build)').to.equal(true);
  });

  it('the build compiles exactly the entry points the image runs: the API, the worker and the operator CLI', () => {
    expect(build.include ?? [], 'no folder compiled whole').to.deep.equal([]);
    const commands = ['api', 'worker'].map(
      (target) =>
        lineage(stages, target)
          .flatMap((stage) => stage.instructions.filter((i) => i.keyword === 'CMD'))
          .map((cmd) => (JSON.parse(cmd.args) as string[]).at(-1)!)[0],
    );
    const bins = Object.values(pkg.bin as Record<string, string>);
    // connector-doctor is the bin; scripts/oauth-client.ts runs from a checkout, so nothing of scripts/ is built.
    expect([...commands, ...bins].sort()).to.deep.equal(build.files.map((entry) => path.relative(repoRoot, compiled(entry))).sort());
  });

  it('dist/ holds what the entry points load, the cards they serve and Lua scripts beside their stores, nothing else', () => {
    const loaded = runtimeClosure(build.files.map(compiled));
    const cards = pageCardsOf().map(builtCardFile);
    const stray = filesUnder(dist).filter((file) => {
      // A source map goes with the file it maps.
      const full = path.join(dist, mappedFile(file));
      if (loaded.has(full)) return false;
      // A types-only module, compiled because an entry's code imports its types: no code at run time.
      if (full.endsWith('.js') && readFileSync(full, 'utf8').replace(SOURCE_MAP_COMMENT, '') === EMPTY_MODULE) return false;
      // Read by the API at run time: the cards the build bundles, Lua scripts copied from the sources.
      if (cards.includes(file)) return false;
      if (file.endsWith('.lua') && existsSync(path.join(repoRoot, file))) return false;
      return true;
    });
    expect(stray).to.deep.equal([]);
    expect(cards, 'the job card among the built cards').to.include(path.join('app-cards', 'connector', 'job-card.html'));
    expect(filesUnder(dist)).to.include.members(cards);
    // The bundler is a build tool: nothing of it is compiled into dist/.
    expect(filesUnder(dist).filter((file) => /bundle/.test(file))).to.deep.equal([]);
  });

  it('the image copies dist/ and the manifests npm ci needs into its runtime stages, nothing else of the build', () => {
    for (const target of ['api', 'worker']) {
      const copies = lineage(stages, target).flatMap((stage) => stage.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args));
      expect(copies.sort(), target).to.deep.equal(['--from=build /app/dist ./dist', 'package.json package-lock.json ./']);
    }
  });
});
