import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../test/testkit/node-process';

/** The Node a bench runs on: its executable, its version, and where it came from (printed beside every figure). */
export interface BenchNode {
  executable: string;
  version: string;
  /** `image`: the Dockerfile's NODE_VERSION (the default); `machine`: the Node that started the bench; `path`: BENCH_NODE. */
  origin: 'image' | 'machine' | 'path';
}

/** The variable that names the Node: unset or `image` (the default), `machine`, or a path to a `node` executable. */
export const BENCH_NODE_VARIABLE = 'BENCH_NODE';

/** The command-line flag that asks for the machine's Node, as `BENCH_NODE=machine` does. */
export const MACHINE_NODE_FLAG = '--machine-node';

/** The Node version the production image pins: the Dockerfile's `ARG NODE_VERSION=` (what .ci/run reads). */
export function imageNodeVersion(root = repoRoot()): string {
  const dockerfile = readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const version = /^ARG NODE_VERSION=(\S+)$/m.exec(dockerfile)?.[1];
  if (!version || !/^\d+\.\d+\.\d+$/.test(version))
    throw new Error(`the Dockerfile's NODE_VERSION is '${version ?? ''}', not a full Node version (major.minor.patch)`);
  return version;
}

/**
 * Where the image's Node is kept: `.tools/node-<version>/` at the repository's root (git-ignored), installed
 * as .ci/run installs it: the npm registry's `node-<platform>-<arch>@<version>`, the bare binary.
 */
export function imageNodeExecutable(version: string, root = repoRoot()): string {
  return path.join(root, '.tools', `node-${version}`, 'node_modules', '.bin', 'node');
}

/** Which Node the settings ask for (no side effect): the origin, and the path for `path`. */
export function requestedNode(env: NodeJS.ProcessEnv, args: readonly string[]): { origin: BenchNode['origin']; path?: string } {
  const value = env[BENCH_NODE_VARIABLE] ?? '';
  if (args.includes(MACHINE_NODE_FLAG) || value === 'machine') return { origin: 'machine' };
  if (value === '' || value === 'image') return { origin: 'image' };
  return { origin: 'path', path: value };
}

function versionOf(executable: string): string {
  return execFileSync(executable, ['-v'], { encoding: 'utf8' }).trim();
}

/** Installs the image's Node into its cache unless it is there already; returns its executable. */
function installImageNode(version: string): string {
  const executable = imageNodeExecutable(version);
  if (existsSync(executable) && versionOf(executable) === `v${version}`) return executable;
  const binaryPackage = `node-${process.platform}-${process.arch}@${version}`;
  process.stderr.write(`fetching ${binaryPackage} from the npm registry into ${path.dirname(path.dirname(path.dirname(executable)))}\n`);
  const prefix = path.dirname(path.dirname(path.dirname(executable)));
  execFileSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', prefix, binaryPackage], { stdio: 'inherit' });
  const installed = versionOf(executable);
  if (installed !== `v${version}`) throw new Error(`${binaryPackage} runs as ${installed}, not v${version}`);
  return executable;
}

/** Resolves (and for the image's Node, fetches once) the Node the bench runs on. */
export function benchNode(env: NodeJS.ProcessEnv = process.env, args: readonly string[] = process.argv.slice(2)): BenchNode {
  const wanted = requestedNode(env, args);
  if (wanted.origin === 'machine') return { executable: process.execPath, version: process.version, origin: 'machine' };
  if (wanted.origin === 'path') return { executable: wanted.path!, version: versionOf(wanted.path!), origin: 'path' };
  const executable = installImageNode(imageNodeVersion());
  return { executable, version: versionOf(executable), origin: 'image' };
}

/** How a report names the Node of its figures, e.g. `Node v26.12.1 (the image's, Dockerfile NODE_VERSION)`. */
export function describeNode(version: string, origin: string | undefined): string {
  const from =
    origin === 'image'
      ? "the image's, Dockerfile NODE_VERSION"
      : origin === 'machine'
        ? "the machine's"
        : origin === 'path'
          ? BENCH_NODE_VARIABLE
          : 'started directly';
  return `Node ${version} (${from})`;
}

/** The Node that runs this process, as {@link describeNode} names it (`on-node.ts` sets BENCH_NODE_ORIGIN). */
export function thisNode(): string {
  return describeNode(process.version, process.env.BENCH_NODE_ORIGIN);
}
