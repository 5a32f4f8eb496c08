import { mkdirSync, readFileSync, rmdirSync, writeFileSync, existsSync } from 'node:fs';
import path from 'node:path';

/** A memory cgroup of this machine with a limit: a process written into `procsFile` runs under it. */
export interface MemoryCgroup {
  procsFile: string;
  remove(): void;
}

/**
 * Makes a memory cgroup with a limit of `limitMiB` below this process's own, as a container's memory limit
 * would be (Linux, cgroup v1 or v2, writable cgroup file system: root in a sandbox or a VM). Node sizes its
 * heap from the limit of the cgroup it starts in (`process.constrainedMemory()`), which is why the chart's
 * limit changes the CPU a request costs (bench/README.md, "Node's heap under a memory limit").
 */
export function memoryCgroup(name: string, limitMiB: number): MemoryCgroup {
  const own = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  const bytes = String(limitMiB * 1024 * 1024);
  let dir: string;
  let limitFile: string;
  const v1 = own.find((line) => /^\d+:memory:/.test(line));
  if (v1 && existsSync('/sys/fs/cgroup/memory')) {
    dir = path.join('/sys/fs/cgroup/memory', v1.split(':')[2], name);
    limitFile = 'memory.limit_in_bytes';
  } else {
    const v2 = own.find((line) => line.startsWith('0::'));
    if (!v2 || !existsSync('/sys/fs/cgroup/cgroup.controllers'))
      throw new Error('no memory cgroup to place processes in (Linux cgroup v1 or v2 needed)');
    dir = path.join('/sys/fs/cgroup', v2.slice(3), name);
    limitFile = 'memory.max';
  }
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, limitFile), bytes);
  } catch (error) {
    throw new Error(
      `cannot make the memory cgroup ${dir} (${(error as NodeJS.ErrnoException).code ?? String(error)}): run as root on a writable cgroup file system`,
    );
  }
  return {
    procsFile: path.join(dir, 'cgroup.procs'),
    // A cgroup can be removed only once its processes have exited; a leftover one is harmless.
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        /* still in use or already gone */
      }
    },
  };
}
