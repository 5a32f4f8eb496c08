import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { INJECTED_OPERATIONS } from '../support/injected-operations';
import { ROOT } from '../support/spawn-process';

/**
 * The suites that derive what they check from the registry: the operations, tools, cards, body limits,
 * descriptions, prices, job settings and the documents. Not here: the recorded faces
 * (test/http/published-faces.test.ts) and the guides' marked lists (test/docs/tool-lists.test.ts, rewritten by
 * scripts/doc-lists.ts), which compare with what was shipped on purpose.
 */
const SUITES = [
  'test/unit/api/**/*.test.ts',
  'test/unit/shared/contract/**/*.test.ts',
  'test/unit/shared/domain/jobs/**/*.test.ts',
  'test/unit/doctor-rules.test.ts',
  'test/unit/tool-schema-portability.test.ts',
  'test/unit/layers.test.ts',
  'test/unit/scripts/doc-lists.test.ts',
  'test/unit/scripts/build-cards.test.ts',
  'test/docs/configuration-reference.test.ts',
  'test/docs/worked-example.test.ts',
  'test/http/descriptions.test.ts',
  'test/mcp/registry-faces.test.ts',
];

/** The operations test/support/inject-extra-operations.ts adds, as the registry-rules suite names them. */
const INJECTED = INJECTED_OPERATIONS.map((operation) => operation.operationId);

/**
 * Every test but the registry rules of the shipped operations: a mistake in one of those is told by its own
 * test in this run (registry-rules.test.ts), not a second time through the child's.
 */
const GREP = `^(?!the rules every operation of the registry meets (?!(${INJECTED.join('|')}) ))`;

describe('adding operations to the registry itself (test/support/inject-extra-operations.ts)', function () {
  // The child runs about 400 tests (the worked example's connector among them): 1 min alone, over 2 on a loaded
  // machine inside test:fast.
  this.timeout(300_000);

  it('the registry-deriving suites pass with the trial’s operations, one with its own body limit and one with its own card, added', () => {
    // A child mocha: the injection edits the registry of the process it loads in, which must not be this one.
    const args = ['--require', 'test/support/inject-extra-operations.ts', '--reporter', 'spec', '--grep', GREP, ...SUITES];
    const run = spawnSync(path.join(ROOT, 'node_modules', '.bin', 'mocha'), args, {
      cwd: ROOT,
      env: { ...process.env, TEST_BACKENDS: 'memory' },
      encoding: 'utf8',
    });
    expect(run.status, `${run.stdout}\n${run.stderr}`.slice(-6000)).to.equal(0);
    for (const operationId of INJECTED)
      expect(run.stdout, operationId).to.include(`${operationId} meets the rule "the price rule is in range`);
    // countWords declares limits of its own: the rule that checks them ran over it, and passed.
    expect(run.stdout).to.include('countWords meets the rule "the limits are in range and the price can meet them"');
    expect(run.stdout).to.match(/\d+ passing/);
  });
});
