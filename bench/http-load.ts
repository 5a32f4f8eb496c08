import autocannon from 'autocannon';
import type { RedisClient } from '../shared/adapters/redis/redis-client';
import { cpuTimeMs, residentMemory, round, syscalls } from './bench-processes';
import { commandsProcessed } from './bench-redis';
import type { MemoryCgroup } from './memory-cgroup';

/** One HTTP scenario's figures. */
export interface HttpFigure {
  /** The letter for the scenario, e.g. `b`; the memory variant of (b) is `b-memory`. */
  id: string;
  title: string;
  backend: 'none' | 'memory' | 'redis';
  requestsPerSecond: number;
  requests: number;
  latencyMs: { p50: number; p99: number; max: number };
  non2xx: number;
  errors: number;
  /** Commands Redis processed per request during the scenario (null without Redis). */
  redisCommandsPerRequest: number | null;
  /** CPU the serving process used per request, in microseconds (null where /proc is missing). */
  serverCpuUsPerRequest: number | null;
  /** Read and write system calls of the serving process per request (null where /proc is missing). */
  serverSyscallsPerRequest: { reads: number; writes: number } | null;
  /** Resident memory of the serving process right after the scenario, in MB (null where /proc is missing). */
  serverRssMbAfter: number | null;
  /** The throughput of (a) this figure is compared with: the mean of the measurements of (a) either side of it. */
  baselineRequestsPerSecond?: number;
  /** Requests per second relative to that baseline. */
  ofBaseline?: number;
  /**
   * The baseline's CPU per request over this scenario's: the throughput ratio a CPU-bound server would reach
   * on quiet cores. Far less sensitive than `ofBaseline` to other load on the machine.
   */
  ofBaselineByCpu?: number | null;
}

/** What a scenario sends: autocannon's own request options, against one base URL. */
export interface HttpScenario {
  id: string;
  title: string;
  backend: HttpFigure['backend'];
  url: string;
  /** The process that serves it, for its CPU time. */
  pid?: number;
  /** The memory cgroup it runs in (the full run: the chart's limit), whose charge the run reports. */
  cgroup?: MemoryCgroup;
  options?: Partial<autocannon.Options>;
}

/** How long and how hard each scenario loads its target. */
export interface LoadSettings {
  durationSeconds: number;
  connections: number;
  /** The bench's Redis, to count commands per request; absent for scenarios that do not touch it. */
  redis?: RedisClient;
}

/**
 * Runs one scenario with autocannon (as a library, in this process) and fails loudly on any non-2xx answer
 * or connection error: a run full of 429s or 503s would measure the error path, not the scenario.
 */
export async function runLoad(scenario: HttpScenario, settings: LoadSettings): Promise<HttpFigure> {
  const redis = scenario.backend === 'redis' ? settings.redis : undefined;
  const before = redis ? await commandsProcessed(redis) : 0;
  const cpuBefore = cpuTimeMs(scenario.pid);
  const callsBefore = syscalls(scenario.pid);
  const result = await autocannon({
    url: scenario.url,
    duration: settings.durationSeconds,
    connections: settings.connections,
    ...scenario.options,
  });
  const cpuAfter = cpuTimeMs(scenario.pid);
  const callsAfter = syscalls(scenario.pid);
  const after = redis ? await commandsProcessed(redis) : 0;
  const requests = result.requests.total;
  const figure: HttpFigure = {
    id: scenario.id,
    title: scenario.title,
    backend: scenario.backend,
    requestsPerSecond: round(requests / result.duration, 0),
    requests,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    non2xx: result.non2xx,
    errors: result.errors,
    // The INFO call after the run counts itself once.
    redisCommandsPerRequest: redis && requests > 0 ? round((after - before - 1) / requests, 2) : null,
    serverSyscallsPerRequest:
      callsBefore && callsAfter && requests > 0
        ? {
            reads: round((callsAfter.reads - callsBefore.reads) / requests, 2),
            writes: round((callsAfter.writes - callsBefore.writes) / requests, 2),
          }
        : null,
    serverRssMbAfter: residentMemory(scenario.pid)?.rssMb ?? null,
    serverCpuUsPerRequest:
      cpuBefore !== null && cpuAfter !== null && requests > 0 ? round(((cpuAfter - cpuBefore) * 1000) / requests, 0) : null,
  };
  if (figure.non2xx > 0 || figure.errors > 0 || requests === 0) {
    const statuses = JSON.stringify(result.statusCodeStats ?? {});
    throw new Error(
      `scenario (${scenario.id}) ${scenario.title}: ${figure.non2xx} non-2xx, ${figure.errors} errors, ${requests} requests; statuses ${statuses}`,
    );
  }
  return figure;
}

/** A request setup that gives every request a fresh idempotency key (a new paid job each time). */
export function freshKeys(prefix: string): (request: autocannon.Request) => autocannon.Request {
  let n = 0;
  return (request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `${prefix}-${++n}` } });
}

/**
 * A request setup that sends each request for the next of `authorizations` in turn (one per subject), with
 * a fresh idempotency key: new paid jobs spread over subjects, as many clients send them.
 */
export function subjectsInTurn(prefix: string, authorizations: readonly string[]): (request: autocannon.Request) => autocannon.Request {
  let n = 0;
  return (request) => {
    n++;
    return {
      ...request,
      headers: { ...request.headers, authorization: authorizations[n % authorizations.length], 'idempotency-key': `${prefix}-${n}` },
    };
  };
}
