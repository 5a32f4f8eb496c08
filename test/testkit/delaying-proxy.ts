import net from 'node:net';

/**
 * A TCP proxy in front of one server (a Redis node) that can hold back the server's replies: while a delay is
 * set, every chunk the server sends reaches the client that much later, in order, while the client's bytes
 * still go through at once. The command runs; only its answer is late, past a client's command timeout: what
 * a slow or overloaded Redis looks like to the connector, which pausing Redis (the command never runs) does not show.
 */
export interface DelayingProxy {
  /** The port clients connect to, on 127.0.0.1. */
  readonly port: number;
  /** Holds back every reply chunk received from now on by `ms` (0: no delay). Chunks already held keep their time. */
  delay(ms: number): void;
  /** How many client connections it has accepted so far. */
  readonly connections: number;
  /** How many reply chunks are held back now (0: every reply received has gone on to its client). */
  readonly held: number;
  /** Closes the listener and every connection through it. */
  close(): Promise<void>;
}

/** Where a {@link DelayingProxy} forwards to, and on which port it listens (0: a free one). */
export interface DelayingProxyOptions {
  targetPort: number;
  targetHost?: string;
  port?: number;
}

/** One held-back chunk and when it may go. */
interface Held {
  at: number;
  data: Buffer;
}

/**
 * The server-to-client direction of one connection: chunks leave in arrival order, none before its time, so
 * switching the delay off never lets a later reply overtake an earlier one.
 */
class ReplyLine {
  private readonly queue: Held[] = [];
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(private readonly client: net.Socket) {}

  get held(): number {
    return this.queue.length;
  }

  push(data: Buffer, delayMs: number): void {
    const last = this.queue.at(-1)?.at ?? 0;
    this.queue.push({ at: Math.max(Date.now() + delayMs, last), data });
    this.drain();
  }

  /** Ends the client once every held chunk has gone (the server closed its side). */
  end(): void {
    this.ended = true;
    this.drain();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.queue.length = 0;
  }

  private drain(): void {
    if (this.timer) return;
    const now = Date.now();
    while (this.queue.length > 0 && this.queue[0].at <= now) this.client.write(this.queue.shift()!.data);
    if (this.queue.length > 0) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.drain();
      }, this.queue[0].at - now);
      return;
    }
    if (this.ended) this.client.end();
  }
}

/** Starts a {@link DelayingProxy} forwarding to `targetHost:targetPort` (127.0.0.1 by default), without delay. */
export async function startDelayingProxy({ targetPort, targetHost = '127.0.0.1', port = 0 }: DelayingProxyOptions): Promise<DelayingProxy> {
  let delayMs = 0;
  let connections = 0;
  const open = new Set<net.Socket>();
  const lines = new Set<ReplyLine>();
  const server = net.createServer((client) => {
    connections += 1;
    const upstream = net.connect(targetPort, targetHost);
    const replies = new ReplyLine(client);
    open.add(client).add(upstream);
    lines.add(replies);
    const teardown = () => {
      replies.stop();
      lines.delete(replies);
      client.destroy();
      upstream.destroy();
      open.delete(client);
      open.delete(upstream);
    };
    client.on('data', (data) => upstream.write(data));
    upstream.on('data', (data) => replies.push(data, delayMs));
    // A client that closes ends its server connection; a server that closes ends the client after the replies held.
    client.on('end', () => upstream.end());
    upstream.on('end', () => replies.end());
    client.on('error', teardown);
    upstream.on('error', teardown);
    client.on('close', teardown);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    delay: (ms) => {
      delayMs = ms;
    },
    get connections() {
      return connections;
    },
    get held() {
      let held = 0;
      for (const line of lines) held += line.held;
      return held;
    },
    close: async () => {
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
