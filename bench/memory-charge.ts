import { type CgroupMemory, chartMemoryLimits, executableResidentMiB, type MemoryCgroup, memoryCgroup } from './memory-cgroup';

/** One process's cgroup charge after a stretch of load, with the Node executable's resident pages beside it. */
export interface ChargeFigure extends CgroupMemory {
  /** Resident pages of the Node executable in the process (charged to the bench here, to a fresh container there). */
  executableMiB: number | null;
}

/** The full run's cgroups: each process under the chart's limit for its kind, as its container would be. */
export interface RunCgroups {
  limitsMiB: { api: number; worker: number };
  version: 1 | 2;
  api: MemoryCgroup;
  apiMemory: MemoryCgroup;
  bareServer: MemoryCgroup;
  worker: MemoryCgroup;
  bareWorker: MemoryCgroup;
  removeAll(): void;
}

/**
 * The cgroups of a full run under the chart's memory limits (`charts/connector/values.yaml`): the APIs and
 * the bare Express server under the API's limit, the workers under the worker's, so that a ratio compares
 * processes that size their heaps alike. Null, with the reason printed, where no cgroup can be made
 * (not Linux, not root, a read-only cgroup file system): the run then measures without limits.
 */
export function runCgroups(tag: string): RunCgroups | null {
  try {
    const limitsMiB = chartMemoryLimits();
    const made: MemoryCgroup[] = [];
    const make = (name: string, limit: number) => {
      const cgroup = memoryCgroup(`connector-bench-${tag}-${name}`, limit);
      made.push(cgroup);
      return cgroup;
    };
    const api = make('api', limitsMiB.api);
    return {
      limitsMiB,
      version: api.version,
      api,
      apiMemory: make('api-memory', limitsMiB.api),
      bareServer: make('bare-server', limitsMiB.api),
      worker: make('worker', limitsMiB.worker),
      bareWorker: make('bare-worker', limitsMiB.worker),
      removeAll: () => {
        for (const cgroup of made) cgroup.remove();
      },
    };
  } catch (error) {
    process.stdout.write(`no memory cgroups, measuring without the chart's limits: ${(error as Error).message}\n`);
    return null;
  }
}

/** The charge of `cgroup` now and its peak since the last reset, with `pid`'s resident executable pages. */
export function charge(cgroup: MemoryCgroup, pid: number | undefined): ChargeFigure {
  return { ...cgroup.usage(), executableMiB: executableResidentMiB(pid) };
}

/** What results.json holds of the charges: per stretch of load, the limit, and the highest peak of them all. */
export interface ProcessCharges {
  limitMiB: number;
  /** Each stretch's charge right after it and its peak during it (the peak is reset before each). */
  stretches: Record<string, ChargeFigure>;
  /** The highest peak over the stretches, and the charge after the last one. */
  peakMiB: number;
  afterLoadMiB: number;
}

/** Sums up one process's stretches (in the order they ran). */
export function processCharges(limitMiB: number, stretches: Record<string, ChargeFigure>): ProcessCharges {
  const figures = Object.values(stretches);
  return {
    limitMiB,
    stretches,
    peakMiB: Math.max(...figures.map((figure) => figure.peakMiB)),
    afterLoadMiB: figures.at(-1)?.currentMiB ?? Number.NaN,
  };
}
