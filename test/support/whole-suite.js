// Mocha's configuration for the whole suite (`npm test`, `npm run coverage`): .mocharc.json's settings, and
// every test/**/*.test.ts file once, longest first. Parallel mocha hands the files to its workers in the order
// given, so a long file given late runs on alone while the other workers sit idle: alphabetical order put the
// process, worker, webhook and x402 suites behind the two hundred short files of test/unit/. Plain JavaScript:
// mocha loads its configuration before tsx is registered. One file: `npx mocha <file>` (.mocharc.json alone).
const fs = require('node:fs');
const path = require('node:path');
const base = require('../../.mocharc.json');

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * The files that took 20 s or more each when run alone on the helpers' shared machine (load average 7 to 9,
 * Node 20, no c8), longest first, then the card suites, which mostly wait on their jobs and Chromium
 * (docs/decisions/test-order-longest-first.md). A file renamed or removed stops the run here.
 */
const LONGEST = [
  'test/topologies/cluster-cancels.test.ts',
  'test/process/rolling-rotation.test.ts',
  'test/x402/paid-by-agents-http.test.ts',
  'test/unit/registry-additions.test.ts',
  'test/process/rolling-restart.test.ts',
  'test/http/fuzz.test.ts',
  'test/process/startup.test.ts',
  'test/doctor/doctor.test.ts',
  'test/process/shutdown-under-load.test.ts',
  'test/k8s/pod-simulation.test.ts',
  'test/apps/own-card.test.ts',
  'test/apps/job-card.test.ts',
  'test/apps/job-card-partial.test.ts',
];

/** Every test file under test/, as the glob test/**\/*.test.ts finds it (no dot-folders), sorted. */
function testFiles() {
  return fs
    .readdirSync(path.join(ROOT, 'test'), { recursive: true })
    .map((name) => path.join('test', name))
    .filter((file) => file.endsWith('.test.ts') && !file.split(path.sep).some((part) => part.startsWith('.')))
    .sort();
}

/** The named long files, then the other suites, then test/unit/'s short ones, which fill the workers to the end. */
function longestFirst(files) {
  const missing = LONGEST.filter((file) => !files.includes(file));
  if (missing.length > 0) throw new Error(`test/support/whole-suite.js names files that do not exist: ${missing.join(', ')}`);
  const rest = files.filter((file) => !LONGEST.includes(file));
  const unit = rest.filter((file) => file.startsWith(`test${path.sep}unit${path.sep}`));
  return [...LONGEST, ...rest.filter((file) => !unit.includes(file)), ...unit];
}

module.exports = { ...base, spec: longestFirst(testFiles()) };
