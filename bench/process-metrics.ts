/** A process's memory as its own `/metrics` reports it (prom-client's default metrics), in MB. */
export interface MemorySample {
  /** `process_resident_memory_bytes`. */
  rssMb: number;
  /** `nodejs_heap_size_used_bytes`: the V8 heap in use, garbage not yet collected included. */
  heapUsedMb: number;
}

const MB = 1024 * 1024;

/** Reads one unlabelled sample from Prometheus text. */
export function sampleValue(text: string, name: string): number {
  const match = new RegExp(`^${name} ([0-9.e+-]+)$`, 'm').exec(text);
  if (!match) throw new Error(`no ${name} in the metrics`);
  return Number(match[1]);
}

/** Scrapes `metricsUrl` (`http://127.0.0.1:<port>/metrics`) and returns the resident memory and the heap used. */
export async function scrapeMemory(metricsUrl: string): Promise<MemorySample> {
  const response = await fetch(metricsUrl);
  if (!response.ok) throw new Error(`${metricsUrl} answered ${response.status}`);
  const text = await response.text();
  return {
    rssMb: sampleValue(text, 'process_resident_memory_bytes') / MB,
    heapUsedMb: sampleValue(text, 'nodejs_heap_size_used_bytes') / MB,
  };
}
