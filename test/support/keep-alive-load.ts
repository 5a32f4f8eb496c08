import http from 'node:http';

/** Every outcome of a load run, counted: nothing a client saw is dropped. */
export interface LoadOutcome {
  /** Responses by status code. */
  statuses: Record<number, number>;
  /** Requests that failed without a response, by error code (ECONNRESET, ECONNREFUSED, …). */
  errors: Record<string, number>;
  /** Responses that carried `Connection: close`, after which that client moved off (stopped). */
  closes: number;
  /** Requests sent. */
  total: number;
}

/** A running load: its live counts and a way to wait for (or force) its end. */
export interface KeepAliveLoad {
  readonly outcome: LoadOutcome;
  /** Resolves once every client has stopped (moved off, failed, or hit a bound). */
  readonly finished: Promise<LoadOutcome>;
  /** Asks every client to stop after its current request. */
  stop(): void;
}

export interface KeepAliveLoadOptions {
  /** Concurrent clients, each on its own keep-alive socket. */
  connections: number;
  /** Sent with every request. */
  headers?: Record<string, string>;
  /** Bounds: no client sends past either. */
  maxRequests: number;
  maxMs: number;
}

/**
 * A bounded keep-alive load against one local URL, as a fleet of clients (or an ingress) produces it: each
 * client sends its next request as soon as the previous answer is in, on the same socket, and moves off (stops)
 * when an answer says `Connection: close` or a request fails. Every outcome is counted.
 */
export function keepAliveLoad(url: string, { connections, headers = {}, maxRequests, maxMs }: KeepAliveLoadOptions): KeepAliveLoad {
  const target = new URL(url);
  if (target.hostname !== '127.0.0.1') throw new Error('the load generator only targets 127.0.0.1');
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const outcome: LoadOutcome = { statuses: {}, errors: {}, closes: 0, total: 0 };
  const deadline = Date.now() + maxMs;
  let stopped = false;

  const once = (): Promise<'again' | 'done'> =>
    new Promise((resolve) => {
      outcome.total += 1;
      const req = http.get(target, { agent, headers }, (res) => {
        res.resume();
        res.once('end', () => {
          const status = res.statusCode ?? 0;
          outcome.statuses[status] = (outcome.statuses[status] ?? 0) + 1;
          if (res.headers.connection === 'close') {
            outcome.closes += 1;
            return resolve('done');
          }
          resolve('again');
        });
      });
      req.once('error', (error: NodeJS.ErrnoException) => {
        const code = error.code ?? error.message;
        outcome.errors[code] = (outcome.errors[code] ?? 0) + 1;
        resolve('done');
      });
    });

  const client = async (): Promise<void> => {
    while (!stopped && outcome.total < maxRequests && Date.now() < deadline) {
      if ((await once()) === 'done') return;
    }
  };
  const finished = Promise.all(Array.from({ length: connections }, client)).then(() => {
    agent.destroy();
    return outcome;
  });
  return { outcome, finished, stop: () => (stopped = true) };
}

/** The count of responses with a status of 500 or more. */
export function serverErrors(outcome: LoadOutcome): number {
  return Object.entries(outcome.statuses).reduce((sum, [status, count]) => sum + (Number(status) >= 500 ? count : 0), 0);
}
