/**
 * Where Node's fetch keeps its dispatcher (undici's Agent, which pools keep-alive connections per origin).
 * Node 20 keeps it under the first key; Node 26's undici keeps it under the second and puts a wrapper that
 * adapts it to the older interface under the first, for code that still reads that key.
 */
const CURRENT_KEY = Symbol.for('undici.globalDispatcher.2');
const LEGACY_KEY = Symbol.for('undici.globalDispatcher.1');

interface Dispatcher {
  close(): Promise<void>;
}

type Holder = Record<symbol, Dispatcher | undefined>;

/**
 * Lets go of the keep-alive connections fetch keeps open. A connector that stops keeps an idle socket open
 * for a second before closing it (its client may be about to send the next request on it), so closing one
 * that a test has just called would otherwise wait out that second: here a fresh dispatcher takes every later
 * request, and the old one closes its idle connections at once and the others when their answers are in.
 */
export function dropIdleConnections(): void {
  const holder = globalThis as unknown as Holder;
  const key = holder[CURRENT_KEY] === undefined ? LEGACY_KEY : CURRENT_KEY;
  const current = holder[key];
  // Nothing fetched yet: no connection to let go of.
  if (current === undefined) return;
  const fresh = new (current.constructor as new () => Dispatcher)();
  holder[key] = fresh;
  if (key === CURRENT_KEY) rewrapLegacy(holder, fresh);
  current.close().catch(() => undefined);
}

/** Keeps the older key's wrapper pointing at the dispatcher fetch now uses. */
function rewrapLegacy(holder: Holder, fresh: Dispatcher): void {
  const wrapper = holder[LEGACY_KEY];
  if (wrapper === undefined) return;
  holder[LEGACY_KEY] = new (wrapper.constructor as new (inner: Dispatcher) => Dispatcher)(fresh);
}
