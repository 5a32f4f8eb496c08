/** Where Node's fetch keeps its dispatcher (undici's Agent, which pools keep-alive connections per origin). */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

interface Dispatcher {
  close(): Promise<void>;
}

/**
 * Lets go of the keep-alive connections fetch keeps open. A connector that stops keeps an idle socket open
 * for a second before closing it (its client may be about to send the next request on it), so closing one
 * that a test has just called would otherwise wait out that second: here a fresh dispatcher takes every later
 * request, and the old one closes its idle connections at once and the others when their answers are in.
 */
export function dropIdleConnections(): void {
  const holder = globalThis as unknown as Record<symbol, Dispatcher | undefined>;
  const current = holder[GLOBAL_DISPATCHER];
  // Nothing fetched yet: no connection to let go of.
  if (current === undefined) return;
  holder[GLOBAL_DISPATCHER] = new (current.constructor as new () => Dispatcher)();
  current.close().catch(() => undefined);
}
