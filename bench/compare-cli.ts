import { fromInvocation } from './bench-processes';
import type { OtherBuild } from './connector-processes';
import { stopAll } from './connector-processes';
import { memoryCgroup, type MemoryCgroup } from './memory-cgroup';

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

/**
 * The builds to compare, from `tree[@flag@flag...]` words: each with its own key prefix and, under
 * `--memory-limit <MiB>`, a memory cgroup of its own (removed by `removeCgroups` once its process is gone).
 * A word `trace=<ratio>` among the flags is not a Node flag: that build traces, sampling `<ratio>` of the
 * traces (`parentbased_traceidratio`), and exports to the comparison's local OTLP sink (`tracingRatio`).
 */
export function comparedBuilds(
  trees: string[],
  kind: string,
): { builds: Array<OtherBuild & { label: string; tracingRatio?: string; cgroup?: MemoryCgroup }>; removeCgroups(): void } {
  const limitMiB = option('memory-limit', '');
  const cgroups: MemoryCgroup[] = [];
  const builds = trees.map((tree, i) => {
    const [root, ...flags] = tree.split('@');
    const tracingRatio = flags.find((flag) => flag.startsWith('trace='))?.slice('trace='.length);
    const nodeArgs = flags.filter((flag) => !flag.startsWith('trace='));
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
