import v8 from 'node:v8';

// Preloaded into a server with `--require` by `allocations.ts`. The first SIGUSR2 opens a window, the next closes
// it and prints the bytes the JavaScript heap allocated in between:
//   allocated = (used heap at the end − used heap at the start) + Σ over every collection (used before − used after)
// since the used heap only grows by allocation and only shrinks by collection. V8 counts the same thing itself
// from Node 26 (`total_allocated_bytes`), printed beside it where present. Both count the heap only: a Buffer's
// backing store lives outside it (its JavaScript object inside), as does memory the C++ side of Node allocates.

interface Window {
  profiler: v8.GCProfiler;
  used: number;
  total: number | undefined;
}

type WithTotal = v8.HeapInfo & { total_allocated_bytes?: number };

let open: Window | undefined;
let windows = 0;

function heap(): { used: number; total: number | undefined } {
  const statistics = v8.getHeapStatistics() as WithTotal;
  return { used: statistics.used_heap_size, total: statistics.total_allocated_bytes };
}

function close(window: Window): void {
  const collections = window.profiler.stop()?.statistics ?? [];
  const now = heap();
  const freed = collections.reduce((sum, gc) => sum + gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize, 0);
  const figures = {
    allocated: now.used - window.used + freed,
    v8Total: now.total === undefined || window.total === undefined ? null : now.total - window.total,
    collections: collections.length,
  };
  process.stdout.write(`allocation-probe ${windows} ${JSON.stringify(figures)}\n`);
}

process.on('SIGUSR2', () => {
  windows += 1;
  if (open) {
    close(open);
    open = undefined;
    return;
  }
  const profiler = new v8.GCProfiler();
  profiler.start();
  open = { profiler, ...heap() };
  process.stdout.write(`allocation-probe ${windows} open\n`);
});
