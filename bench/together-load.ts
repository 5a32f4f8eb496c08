import autocannon from 'autocannon';
import { cpuTimeMs } from './bench-processes';
import type { HttpScenario } from './http-load';

/** One server under load in a stretch of a paired comparison: its process, its URL, what it is sent. */
export interface Loaded {
  label: string;
  pid: number;
  url: string;
  options: HttpScenario['options'];
}

/** What a floor's POST routes are sent: the body of the connector's job scenarios (`scenarios.ts`). */
export const JOB_BODY = {
  method: 'POST' as const,
  headers: { 'content-type': 'application/json' },
  body: '{"input":{"prompt":"bench"}}',
} satisfies HttpScenario['options'];

/** Connections per server while servers are loaded together (as `bench:compare` loads each build). */
export const TOGETHER_CONNECTIONS = 25;

/**
 * Loads every server under its own autocannon at the same moment (2 s unmeasured first, then `seconds`) and
 * returns each one's CPU per request in µs, from /proc. Whatever else the machine does weighs on all of them
 * alike, so only their ratios are read. Any answer other than 2xx, or a connection error, fails the stretch.
 */
export async function measureTogether(servers: Loaded[], seconds: number): Promise<number[]> {
  const load = (server: Loaded, duration: number) =>
    autocannon({ url: server.url, ...server.options, connections: TOGETHER_CONNECTIONS, duration });
  // Two seconds unmeasured settle the JIT; a run shorter than that (a smoke run) warms up as long as it measures.
  await Promise.all(servers.map((server) => load(server, Math.min(2, seconds))));
  const before = servers.map((server) => cpuTimeMs(server.pid)!);
  const results = await Promise.all(servers.map((server) => load(server, seconds)));
  return servers.map((server, i) => {
    const result = results[i];
    if (result.non2xx > 0 || result.errors > 0) {
      const statuses = JSON.stringify(result.statusCodeStats ?? {});
      throw new Error(`${server.label}: ${result.non2xx} non-2xx, ${result.errors} errors; statuses ${statuses}`);
    }
    return ((cpuTimeMs(server.pid)! - before[i]) * 1000) / result.requests.total;
  });
}
