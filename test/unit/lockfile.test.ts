import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/spawn-process';

const { missingOptional } = require(path.join(ROOT, 'scripts', 'fix-lockfile.js'));

describe("package-lock.json (the repository's and the bench package's)", () => {
  for (const file of ['package-lock.json', 'bench/package-lock.json']) {
    it(`${file} lists every optional platform package it names, so npm ci accepts it on a fresh machine`, () => {
      const lock = JSON.parse(readFileSync(path.join(ROOT, file), 'utf8'));
      expect(missingOptional(lock), `run: node scripts/fix-lockfile.js ${file}`).to.deep.equal([]);
    });
  }

  it('the check finds an optional package that has no entry', () => {
    const lock = { packages: { '': {}, 'node_modules/a': { optionalDependencies: { 'a-darwin-arm64': '1.0.0' } } } };
    expect(missingOptional(lock)).to.deep.equal([['node_modules/a-darwin-arm64', '1.0.0', 'darwin', 'arm64']]);
  });
});
