import { fromInvocation } from './bench-processes';
import type { OtherBuild } from './connector-processes';
import { stopAll } from './connector-processes';
import { type MemoryCgroup, memoryCgroup } from './memory-cgroup';

// What `bench:compare` and `bench:compare-drain` share: their command line, the builds it names, and how a
// comparison ends.

/** The value after `--<name>` on the command line, or `fallback`. */
export function option(name: string, fallback: string): string {
  const args = process.argv.slice(2);
  const at = args.indexOf(`--${name}`);
  return at === -1 ? fallback : args[at + 1];
}

/** The built trees named on the command line (every word that is neither a flag nor a flag's value). */
export function namedTrees(): string[] {
  return process.argv.slice(2).filter((arg, i, args) => !arg.startsWith('--') && !args[i - 1]?.startsWith('--'));
}

/** The middle value (the upper one of an even count). */
export function median(values: number[]): number {
  return [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)];
}

/** What the words after a tree's `@` ask of that build. */
export interface BuildFlags {
  /** The words that are Node flags, in their order. */
  nodeArgs: string[];
  /** `trace=<ratio>`: the ratio of traces that build samples. */
  tracingRatio?: string;
  /** `env:NAME=value` words: variables set for that build's processes (the last word wins for a name). */
  env: Record<string, string>;
}

const ENV_FLAG = /^env:([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

/**
 * Sorts a build's flags (the words after its tree's `@`s): `trace=<ratio>`, `env:NAME=value`, and Node
 * flags for the rest. A word starting `env:` without a variable name and `=` is refused rather than handed to
 * Node, which would fail to start with a message naming neither the build nor the flag's form.
 */
export function buildFlags(flags: string[]): BuildFlags {
  const parsed: BuildFlags = { nodeArgs: [], env: {} };
  for (const flag of flags) {
    if (flag.startsWith('trace=')) parsed.tracingRatio = flag.slice('trace='.length);
    else if (flag.startsWith('env:')) {
      const match = ENV_FLAG.exec(flag);
      if (!match) throw new Error(`build flag ${JSON.stringify(flag)}: write env:NAME=value`);
      parsed.env[match[1]] = match[2];
    } else parsed.nodeArgs.push(flag);
  }
  return parsed;
}

/**
 * The builds to compare, from `tree[@flag@flag...]` words: each with its own key prefix and, under
 * `--memory-limit <MiB>`, a memory cgroup of its own (removed by `removeCgroups` once its process is gone).
 * Flags are sorted by {@link buildFlags}: `trace=<ratio>` makes that build trace, sampling `<ratio>` of the
 * traces (`parentbased_traceidratio`), exporting to the comparison's local OTLP sink (`tracingRatio`);
 * `env:NAME=value` sets a variable for that build's API and worker (`env`); the rest are Node flags.
 */
export function comparedBuilds(
  trees: string[],
  kind: string,
): { builds: Array<OtherBuild & { label: string; tracingRatio?: string; cgroup?: MemoryCgroup }>; removeCgroups(): void } {
  const limitMiB = option('memory-limit', '');
  const cgroups: MemoryCgroup[] = [];
  const builds = trees.map((tree, i) => {
    const [root, ...flags] = tree.split('@');
    const { nodeArgs, tracingRatio, env } = buildFlags(flags);
    const cgroup = limitMiB ? memoryCgroup(`connector-${kind}-${process.pid}-${i}`, Number(limitMiB)) : undefined;
    if (cgroup) cgroups.push(cgroup);
    return {
      label: tree,
      root: fromInvocation(root),
      nodeArgs,
      keyPrefix: `compare-${i}:`,
      cgroupProcs: cgroup?.procsFile,
      cgroup,
      tracingRatio,
      env,
    };
  });
  return {
    builds,
    removeCgroups: () => {
      for (const cgroup of cgroups) cgroup.remove();
    },
  };
}

/** Runs a comparison's `main`, stopping every process it started whatever happens, and exits. */
export function runComparison(name: string, main: () => Promise<void>): void {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${name} failed: ${error instanceof Error ? error.stack : String(error)}\n`);
      void stopAll().finally(() => process.exit(1));
    },
  );
}
