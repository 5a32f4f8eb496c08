import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { chartDir, repoRoot } from '../support/helm';
import { importClosure } from '../support/import-graph';
import { admits } from '../support/node-range';
import { dockerfileStages, effective, globalArgs, lineage, type Stage } from './support/dockerfile';

const dockerfile = readFileSync(path.join(repoRoot, 'Dockerfile'), 'utf8');
const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8'));

function stage(stages: Stage[], name: string): Stage {
  const found = stages.find((s) => s.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
}

function runs(s: Stage): string[] {
  return s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
}

describe('Dockerfile', function () {
  const stages = dockerfileStages(dockerfile);

  it('has the stages deps, build, runtime, api and worker, with api and worker built on runtime', function () {
    expect(stages.map((s) => s.name)).to.include.members(['deps', 'build', 'runtime', 'api', 'worker']);
    expect(stage(stages, 'api').from).to.equal('runtime');
    expect(stage(stages, 'worker').from).to.equal('runtime');
    expect(stage(stages, 'build').from).to.equal('deps');
  });

  it('starts every stage from an official Node 26 slim image pinned to a full version', function () {
    const args = globalArgs(dockerfile);
    const bases = stages.map((s) => s.from).filter((from) => !stages.some((other) => other.name === from));
    expect(bases.length).to.be.greaterThan(0);
    for (const base of bases) {
      const resolved = base.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (_, name: string) => args[name] ?? '');
      expect(resolved).to.match(/^node:26\.\d+\.\d+-bookworm-slim$/);
    }
  });

  it('pins a Node version that package.json engines admits', function () {
    const pinned = globalArgs(dockerfile).NODE_VERSION;
    expect(pinned).to.match(/^\d+\.\d+\.\d+$/);
    expect(admits(pkg.engines.node as string, pinned!), `engines ${pkg.engines.node} admits ${pinned}`).to.equal(true);
  });

  it('compiles with npm run build in the build stage, and that script runs tsc into dist/', function () {
    expect(runs(stage(stages, 'build'))).to.include('npm run build');
    expect(pkg.scripts.build).to.match(/\btsc -p tsconfig\.build\.json && npm run -s build:assets$/);
    // The image has no bundler: the build writes the MCP Apps cards into dist/ for the server to read.
    expect(pkg.scripts['build:assets']).to.match(/\btsx scripts\/build-cards\.ts\b/);
    // Nor does tsc copy the Lua scripts the Redis stores read at start: the build checks them and copies them.
    expect(pkg.scripts['build:assets']).to.match(/\btsx scripts\/build-lua-scripts\.ts\b/);
    const tsconfig = JSON.parse(readFileSync(path.join(repoRoot, 'tsconfig.json'), 'utf8'));
    expect(tsconfig.compilerOptions.outDir).to.equal('dist');
    expect(tsconfig.compilerOptions.rootDir).to.equal('.');
  });

  it('installs only production dependencies in the runtime base with npm ci --omit=dev, NODE_ENV=production and HOST=::', function () {
    const runtime = stage(stages, 'runtime');
    expect(runs(runtime).some((r) => /^npm ci --omit=dev\b/.test(r))).to.equal(true);
    expect(runs(runtime).some((r) => /npm (install|i)\b/.test(r))).to.equal(false);
    const env = runtime.instructions
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).to.match(/\bNODE_ENV=production\b/);
    expect(env, 'every interface, whatever PUBLIC_URL is: published ports never reach the loopback').to.match(/\bHOST=::(\s|$)/);
    const copies = runtime.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).to.include('--from=build /app/dist ./dist');
    expect(
      copies.some((c) => /--from=(deps|build) \/app\/node_modules/.test(c)),
      'no dev node_modules copied',
    ).to.equal(false);
  });

  // The API's old generation grows less (its charge after load, docs/decisions/heap-flags.md).
  for (const [target, script, growing] of [
    ['api', 'start', '100'],
    ['worker', 'start:worker', '200'],
  ] as const) {
    it(`runs the ${target} target as a non-root numeric user with exec-form CMD equal to npm's ${script} script`, function () {
      const user = effective(stages, target, 'USER');
      expect(user).to.match(/^[0-9]+(:[0-9]+)?$/);
      expect(Number(user!.split(':')[0])).to.be.greaterThan(0);
      const cmd = JSON.parse(effective(stages, target, 'CMD')!) as string[];
      expect(cmd).to.deep.equal((pkg.scripts[script] as string).split(' '));
      expect(cmd[0]).to.equal('node');
      expect(JSON.parse(effective(stages, target, 'ENTRYPOINT')!)).to.deep.equal([]);
      // Under a container's memory limit Node would size the heap small and spend about 60 % more CPU per
      // request (bench/README.md); the bench starts its processes with the same flags.
      expect(cmd.slice(1, -1)).to.deep.equal(['--max-semi-space-size=16', `--heap-growing-percent=${growing}`]);
    });
  }

  it('runs entry points whose TypeScript sources exist where tsc puts them in dist/', function () {
    for (const script of ['start', 'start:worker']) {
      const entry = (pkg.scripts[script] as string).split(' ').find((word) => !word.startsWith('-') && word !== 'node')!;
      expect(entry).to.match(/^dist\/.+\.js$/);
      const source = entry.replace(/^dist\//, '').replace(/\.js$/, '.ts');
      expect(existsSync(path.join(repoRoot, source)), `${source} (for ${script})`).to.equal(true);
    }
  });

  it('exposes the ports the chart configures by default (api 8787 and 9464, worker 9465)', function () {
    const values = YAML.parse(readFileSync(path.join(chartDir, 'values.yaml'), 'utf8'));
    const exposed = (target: string) =>
      lineage(stages, target).flatMap((s) =>
        s.instructions.filter((i) => i.keyword === 'EXPOSE').flatMap((i) => i.args.split(' ').map(Number)),
      );
    expect(exposed('api').sort()).to.deep.equal([values.api.port, values.api.metricsPort].sort());
    expect(exposed('worker')).to.deep.equal([values.worker.metricsPort]);
  });

  it('never runs npm, a shell or a package manager as the container command', function () {
    for (const target of ['api', 'worker']) {
      const cmd = effective(stages, target, 'CMD')!;
      expect(cmd.startsWith('['), `${target}: exec form`).to.equal(true);
      expect(cmd).not.to.match(/\b(npm|npx|sh|bash|yarn)\b/);
    }
  });
});

describe('.dockerignore', function () {
  const ignored = readFileSync(path.join(repoRoot, '.dockerignore'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));

  it('keeps node_modules, dist, .git, .tools and secrets (.env) out of the build context', function () {
    expect(ignored).to.include.members(['node_modules', 'dist', '.git', '.tools', '.env']);
  });

  it('keeps what npm ci and npm run build need in the build context: the manifests and every folder the build compiles', function () {
    const build = JSON.parse(readFileSync(path.join(repoRoot, 'tsconfig.build.json'), 'utf8')) as { files: string[] };
    // The folders of every source the entry points import, scripts/ (the build runs build-cards.ts) and the
    // cards' pages it bundles.
    const folders = new Set([
      'scripts',
      'cards',
      ...build.files
        .flatMap((entry) => [...importClosure(path.join(repoRoot, entry))])
        .map((file) => path.relative(repoRoot, file).split(path.sep)[0]!),
    ]);
    expect([...folders]).to.include.members(['api', 'worker', 'shared', 'doctor']);
    // tsconfig.card.json: the build bundles the MCP Apps cards' pages with it.
    for (const needed of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'tsconfig.card.json', ...folders]) {
      expect(ignored, needed).not.to.include(needed);
    }
  });

  it('keeps the bench package out of the build context', function () {
    expect(ignored).to.include.members(['bench', '**/node_modules']);
  });
});
