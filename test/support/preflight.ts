// `npm test` runs this before the build: it names every program the suite needs that this machine lacks, with
// the Debian package that installs it, and exits non-zero, instead of letting the run fail ten minutes in.
import { CHROMIUM_PATH_VARIABLE, findChromium } from './chromium';
import { findProgram } from './find-program';

/** A program the tests start, the Debian package that installs it, and which tests need it. */
export interface RequiredProgram {
  readonly program: string;
  readonly debianPackage: string;
  readonly neededBy: string;
  /** Another way to satisfy it than installing the package. */
  readonly otherwise?: string;
}

/** Every program outside node_modules that some test starts (`.ci/run` installs the same packages). */
export const REQUIRED_PROGRAMS: readonly RequiredProgram[] = [
  { program: 'redis-server', debianPackage: 'redis-server', neededBy: 'every Redis test: private servers, Sentinel sets and clusters' },
  { program: 'redis-cli', debianPackage: 'redis-tools', neededBy: 'the Redis Cluster tests, which join their nodes with it' },
  {
    program: 'openssl',
    debianPackage: 'openssl',
    neededBy: 'the tests over TLS (Redis, the OAuth client-metadata server), which make their certificates with it',
  },
  { program: 'haproxy', debianPackage: 'haproxy', neededBy: 'the rolling-restart test, which puts it in front of two APIs' },
  {
    program: 'chromium',
    debianPackage: 'chromium',
    neededBy: 'the browser tests: the example dashboard, the root page, the MCP Apps job card in its test host',
    otherwise: `set ${CHROMIUM_PATH_VARIABLE} to another Chromium or Chrome binary`,
  },
];

/** What is missing, one entry per program, in {@link REQUIRED_PROGRAMS}' order; empty when all are present. */
function missingPrograms(env: NodeJS.ProcessEnv): Array<RequiredProgram & { problem: string }> {
  return REQUIRED_PROGRAMS.flatMap((required) => {
    const problem =
      required.program === 'chromium' ? findChromium(env).problem : findProgram(required.program, env.PATH) ? undefined : 'not on PATH';
    return problem === undefined ? [] : [{ ...required, problem }];
  });
}

/** The report for `missing`: what each program is for and how to get it, then one install command. */
function preflightReport(missing: ReturnType<typeof missingPrograms>): string {
  const count = missing.length === 1 ? 'a program the tests need is' : `${missing.length} programs the tests need are`;
  const lines = [`npm test: ${count} missing; nothing was built or run.`];
  for (const { program, debianPackage, neededBy, otherwise, problem } of missing) {
    lines.push(
      `  ${program}: ${problem} (needed by ${neededBy}). Install the Debian package ${debianPackage}${otherwise ? `, or ${otherwise}` : ''}.`,
    );
  }
  lines.push(`On Debian or Ubuntu, as root: apt-get install -y ${missing.map((m) => m.debianPackage).join(' ')}`);
  return `${lines.join('\n')}\n`;
}

if (require.main === module) {
  const missing = missingPrograms(process.env);
  if (missing.length > 0) {
    process.stderr.write(preflightReport(missing));
    process.exitCode = 1;
  }
}
