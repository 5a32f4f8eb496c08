import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { ROOT } from '../support/spawn-process';

/** Mocha's configuration for the whole suite, as `npm test` loads it (plain JavaScript, so no types of its own). */
const config = require(path.join(ROOT, 'test', 'support', 'whole-suite.js')) as Record<string, unknown> & { spec: string[] };

describe('the whole suite’s mocha configuration (test/support/whole-suite.js)', () => {
  it('lists every test file under test/ exactly once, as find sees them', () => {
    const found = execFileSync('find', ['test', '-name', '*.test.ts', '-not', '-path', '*/.*'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean);
    expect(new Set(config.spec).size, 'no file twice').to.equal(config.spec.length);
    expect([...config.spec].sort()).to.deep.equal(found.sort());
  });

  it('gives the long suites first and test/unit’s short ones last, so that the workers finish together', () => {
    expect(config.spec[0]).to.not.match(/^test\/unit\//);
    const firstUnit = config.spec.findIndex((file) => file.startsWith('test/unit/') && !file.endsWith('registry-additions.test.ts'));
    expect(firstUnit).to.be.greaterThan(0);
    expect(config.spec.slice(firstUnit).every((file) => file.startsWith('test/unit/'))).to.equal(true);
    expect(config.spec.indexOf('test/unit/registry-additions.test.ts')).to.be.lessThan(firstUnit);
  });

  it('keeps every other setting of .mocharc.json, which a single file runs with', () => {
    const { spec: _spec, ...settings } = config;
    expect(settings).to.deep.equal(JSON.parse(readFileSync(path.join(ROOT, '.mocharc.json'), 'utf8')));
  });
});
