import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { REQUIRED_PROGRAMS } from '../support/preflight';
import { ROOT, spawnNode } from '../support/spawn-process';

/** The pre-flight as `npm test` runs it (through tsx, before anything is built), with exactly `env`. */
async function runPreflight(env: Record<string, string>) {
  const started = Date.now();
  const run = spawnNode('test/support/preflight.ts', { NODE_OPTIONS: '--import tsx', ...env });
  const code = await run.exited;
  return { code, stdout: run.stdout(), stderr: run.stderr(), ms: Date.now() - started };
}

describe('the test pre-flight (test/support/preflight.ts), run before npm test builds', function () {
  let tmp: string;
  let allBin: string;

  /** A directory holding stand-ins for `programs` (the pre-flight only looks for them, never runs them). */
  function binWith(name: string, programs: readonly string[]): string {
    const dir = path.join(tmp, name);
    mkdirSync(dir);
    for (const program of programs) {
      writeFileSync(path.join(dir, program), '#!/bin/sh\nexit 0\n');
      chmodSync(path.join(dir, program), 0o755);
    }
    return dir;
  }

  before(() => {
    tmp = mkdtempSync(path.join(os.tmpdir(), 'preflight-'));
    allBin = binWith(
      'all',
      REQUIRED_PROGRAMS.map((p) => p.program),
    );
  });
  after(() => rmSync(tmp, { recursive: true, force: true }));

  it('with every program on PATH, prints nothing and exits 0', async () => {
    const run = await runPreflight({ PATH: allBin });
    expect(run.stdout + run.stderr).to.equal('');
    expect(run.code).to.equal(0);
  });

  it('with redis-cli, haproxy and chromium missing, exits 1 within seconds naming each, its Debian package and CHROMIUM_PATH, and none of the present ones', async () => {
    const bin = binWith('partial', ['redis-server', 'openssl', 'haproxy-not-quite', 'chromium-browser']);
    const run = await runPreflight({ PATH: bin });
    expect(run.code).to.equal(1);
    expect(run.stdout).to.equal('');
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines[0]).to.equal('npm test: 3 programs the tests need are missing; nothing was built or run.');
    const missing = lines.slice(1, -1);
    expect(missing.map((line) => /^ {2}([a-z-]+): /.exec(line)?.[1])).to.deep.equal(['redis-cli', 'haproxy', 'chromium']);
    expect(missing[0]).to.contain('not on PATH').and.contain('Install the Debian package redis-tools.');
    expect(missing[1]).to.contain('not on PATH').and.contain('Install the Debian package haproxy.');
    expect(missing[2])
      .to.contain('CHROMIUM_PATH is unset')
      .and.contain('Install the Debian package chromium, or set CHROMIUM_PATH to another Chromium');
    expect(lines.at(-1)).to.equal('On Debian or Ubuntu, as root: apt-get install -y redis-tools haproxy chromium');
    // Well inside the two minutes a missing program may cost before anything says so.
    expect(run.ms).to.be.below(20_000);
  });

  it('with no haproxy alone, names only haproxy and its package', async () => {
    const bin = binWith(
      'no-haproxy',
      REQUIRED_PROGRAMS.map((p) => p.program).filter((p) => p !== 'haproxy'),
    );
    const run = await runPreflight({ PATH: bin });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.equal(
      'npm test: a program the tests need is missing; nothing was built or run.\n' +
        '  haproxy: not on PATH (needed by the rolling-restart test, which puts it in front of two APIs). Install the Debian package haproxy.\n' +
        'On Debian or Ubuntu, as root: apt-get install -y haproxy\n',
    );
  });

  it('with chromium only at CHROMIUM_PATH, off PATH, counts it as present and exits 0', async () => {
    const noBrowser = binWith(
      'no-browser',
      REQUIRED_PROGRAMS.map((p) => p.program).filter((p) => p !== 'chromium'),
    );
    const run = await runPreflight({ PATH: noBrowser, CHROMIUM_PATH: path.join(allBin, 'chromium') });
    expect(run.stdout + run.stderr).to.equal('');
    expect(run.code).to.equal(0);
  });

  it('with CHROMIUM_PATH naming no executable, names the variable and its value even though chromium is on PATH', async () => {
    const notExecutable = path.join(tmp, 'chrome.txt');
    writeFileSync(notExecutable, 'not a program');
    const run = await runPreflight({ PATH: allBin, CHROMIUM_PATH: notExecutable });
    expect(run.code).to.equal(1);
    expect(run.stderr).to.contain(`  chromium: CHROMIUM_PATH names ${notExecutable}, which is not an executable file`);
  });

  it('npm test runs it first, before the build and before mocha', () => {
    const script: string = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.test;
    const steps = script.split(' && ');
    expect(steps.slice(0, 2)).to.deep.equal(['tsx test/support/preflight.ts', 'npm run build']);
    expect(steps).to.have.length(3);
    // Every test file, once: test/support/whole-suite.js lists them (longest first) with .mocharc.json's settings.
    expect(steps[2]).to.equal('mocha --config test/support/whole-suite.js --parallel --jobs 3');
  });

  it("npm run coverage runs npm test's steps, the build's compile with source maps (one compile, not two), and mocha under c8", () => {
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const [preflight, , mocha] = (scripts.test as string).split(' && ');
    expect(scripts.build).to.equal('rm -rf dist && tsc -p tsconfig.build.json && npm run -s build:assets');
    expect((scripts.coverage as string).split(' && ')).to.deep.equal([
      preflight,
      'rm -rf dist',
      'tsc -p tsconfig.build.json --sourceMap',
      'npm run -s build:assets',
      `c8 ${mocha}`,
    ]);
  });

  it('.ci/run installs, for each missing program, the same Debian package the pre-flight names', () => {
    const ci = readFileSync(path.join(ROOT, '.ci', 'run'), 'utf8');
    const installs = [...ci.matchAll(/^command -v (\S+) .*missing\+=\((\S+)\)$/gm)].map((m) => ({ program: m[1], debianPackage: m[2] }));
    expect(installs).to.deep.equal(REQUIRED_PROGRAMS.map(({ program, debianPackage }) => ({ program, debianPackage })));
  });
});
