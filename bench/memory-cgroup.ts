import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  readSync,
  rmdirSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { repoRoot } from '../test/testkit/node-process';

/** A memory cgroup's charge at one moment, in MiB: what a container's memory limit is enforced against. */
export interface CgroupMemory {
  /** The charge now: `memory.current` (cgroup v2), `memory.usage_in_bytes` (v1). */
  currentMiB: number;
  /** The highest charge since the last {@link MemoryCgroup.resetPeak}: `memory.peak` (v2), `memory.max_usage_in_bytes` (v1). */
  peakMiB: number;
  /** Of the charge now: anonymous memory (heap, stacks, malloc) and file pages (page cache), from `memory.stat`. */
  anonMiB: number;
  fileMiB: number;
}

/** A memory cgroup of this machine with a limit: a process written into `procsFile` runs under it. */
export interface MemoryCgroup {
  procsFile: string;
  limitMiB: number;
  /** cgroup v1 or v2: which files the figures come from. */
  version: 1 | 2;
  /** The charge now and the peak since the last reset (or since the cgroup was made). */
  usage(): CgroupMemory;
  /** Starts a new peak from the charge now (v1: writes 0 to the peak; v2: a `memory.peak` reset, kernel 6.12+). */
  resetPeak(): void;
  remove(): void;
}

const MiB = 1024 * 1024;
const mib = (bytes: number): number => Math.round((bytes / MiB) * 10) / 10;

function statField(stat: string, names: string[]): number {
  for (const name of names) {
    const value = new RegExp(`^${name} (\\d+)$`, 'm').exec(stat)?.[1];
    if (value !== undefined) return Number(value);
  }
  return Number.NaN;
}

function readFd(fd: number): string {
  const buffer = Buffer.alloc(64);
  const length = readSync(fd, buffer, 0, buffer.length, 0);
  return buffer.subarray(0, length).toString('utf8');
}

/**
 * Makes a memory cgroup with a limit of `limitMiB` below this process's own, as a container's memory limit
 * would be (Linux, cgroup v1 or v2, writable cgroup file system: root in a sandbox or a VM). Node sizes its
 * heap from the limit of the cgroup it starts in (`process.constrainedMemory()`), which is why the chart's
 * limit changes the CPU a request costs (bench/README.md, "Node's heap under a memory limit").
 */
export function memoryCgroup(name: string, limitMiB: number): MemoryCgroup {
  const own = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const v1 = own.find((line) => /^\d+:memory:/.test(line));
  const version: 1 | 2 = v1 && existsSync('/sys/fs/cgroup/memory') ? 1 : 2;
  let dir: string;
  if (version === 1) {
    dir = path.join('/sys/fs/cgroup/memory', v1!.split(':')[2], name);
  } else {
    const v2 = own.find((line) => line.startsWith('0::'));
    if (!v2 || !existsSync('/sys/fs/cgroup/cgroup.controllers'))
      throw new Error('no memory cgroup to place processes in (Linux cgroup v1 or v2 needed)');
    dir = path.join('/sys/fs/cgroup', v2.slice(3), name);
  }
  const file = (v1Name: string, v2Name: string) => path.join(dir, version === 1 ? v1Name : v2Name);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(file('memory.limit_in_bytes', 'memory.max'), String(limitMiB * MiB));
  } catch (error) {
    throw new Error(
      `cannot make the memory cgroup ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}): run as root on a writable cgroup file system`,
    );
  }
  // v2 resets a peak per open file: the reset and every later read go through the same descriptor.
  let peakFd: number | undefined;
  const readBytes = (v1Name: string, v2Name: string) => Number(readFileSync(file(v1Name, v2Name), 'utf8').trim());
  return {
    procsFile: path.join(dir, 'cgroup.procs'),
    limitMiB,
    version,
    usage: () => {
      const stat = readFileSync(path.join(dir, 'memory.stat'), 'utf8');
      const peak = peakFd === undefined ? readBytes('memory.max_usage_in_bytes', 'memory.peak') : Number(readFd(peakFd).trim());
      return {
        currentMiB: mib(readBytes('memory.usage_in_bytes', 'memory.current')),
        peakMiB: mib(peak),
        anonMiB: mib(statField(stat, ['total_rss', 'rss', 'anon'])),
        fileMiB: mib(statField(stat, ['total_cache', 'cache', 'file'])),
      };
    },
    resetPeak: () => {
      if (version === 1) {
        writeFileSync(path.join(dir, 'memory.max_usage_in_bytes'), '0');
        return;
      }
      if (peakFd !== undefined) closeSync(peakFd);
      peakFd = openSync(path.join(dir, 'memory.peak'), 'r+');
      writeSync(peakFd, 'reset');
    },
    // A cgroup can be removed only once its processes have exited; a leftover one is harmless.
    remove: () => {
      if (peakFd !== undefined) closeSync(peakFd);
      try {
        rmdirSync(dir);
      } catch {
        /* still in use or already gone */
      }
    },
  };
}

/** A Kubernetes memory quantity (`256Mi`, `1Gi`, `300M`, bytes) in MiB. */
export function quantityMiB(quantity: string | number): number {
  const match = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(String(quantity).trim());
  if (!match) throw new Error(`not a memory quantity: ${quantity}`);
  const factor: Record<string, number> = { Ki: 1024, Mi: MiB, Gi: 1024 * MiB, K: 1e3, M: 1e6, G: 1e9, '': 1 };
  return (Number(match[1]) * factor[match[2] ?? '']) / MiB;
}

/** The memory limits the chart gives the API's and the worker's containers (`charts/connector/values.yaml`), in MiB. */
export function chartMemoryLimits(root = repoRoot()): { api: number; worker: number } {
  const values = YAML.parse(readFileSync(path.join(root, 'charts', 'connector', 'values.yaml'), 'utf8'));
  return {
    api: quantityMiB(values.api.resources.limits.memory),
    worker: quantityMiB(values.worker.resources.limits.memory),
  };
}

/**
 * The resident pages of the Node executable mapped into `pid`, in MiB (`/proc/<pid>/smaps`). A container is
 * charged for the executable's pages it reads first; here the bench itself, on the same Node, read them
 * first, so a cgroup's charge lacks them: the report adds them back as the charge of a fresh container.
 */
export function executableResidentMiB(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8');
    const exe = readlinkSync(`/proc/${pid}/exe`).replace(/ \(deleted\)$/, '');
    let kb = 0;
    let inExecutable = false;
    for (const line of smaps.split('\n')) {
      if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inExecutable = line.trimEnd().endsWith(` ${exe}`) || line.includes(`${exe} (deleted)`);
      else if (inExecutable && line.startsWith('Rss:')) kb += Number(/(\d+)/.exec(line)?.[1] ?? 0);
    }
    return mib(kb * 1024);
  } catch {
    return null;
  }
}
