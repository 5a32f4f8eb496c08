import type http from 'node:http';
import net from 'node:net';

/**
 * How long a keep-alive socket with no request on it is kept open once the server stops accepting. HTTP/1.1
 * has no way to tell a client "do not reuse this connection" except on a response, so closing an idle socket
 * races with a client that is writing its next request on it (that client sees a reset). A socket left idle
 * this long after its last response is taken to be parked in a pool, not about to be reused.
 */
export const IDLE_SOCKET_LINGER_MS = 1000;

/** How often the drain looks for sockets that have lingered long enough. */
const SWEEP_INTERVAL_MS = 50;

interface SocketState {
  /** This socket's responses not closed yet: one at a time, more only while a client pipelines. */
  open: http.ServerResponse[];
  /** When its last response finished (or when it connected). */
  idleSince: number;
}

/**
 * Tracks an HTTP server's sockets and in-flight requests so that it can stop without resetting anyone:
 * once stopping, every response carries `Connection: close` (the client moves off after it), busy sockets
 * close after their response, and idle ones only after {@link IDLE_SOCKET_LINGER_MS}.
 */
export class HttpDrain {
  // The open responses are kept per socket, in an array, not in one Set for the server: a Set whose entries
  // come and go with every request makes V8's scavenges keep each response's whole object graph alive into the
  // old generation (2.5 MB promoted per scavenge against none, and a quarter more CPU per `GET /v1/me`;
  // docs/decisions/no-per-request-set.md).
  private readonly sockets = new Map<net.Socket, SocketState>();
  private stoppingFlag = false;

  constructor(private readonly server: http.Server) {
    server.on('connection', (socket: net.Socket) => {
      this.sockets.set(socket, { open: [], idleSince: Date.now() });
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** True once {@link stop} was called: `/readyz` answers 503 from then on. */
  get stopping(): boolean {
    return this.stoppingFlag;
  }

  /** Counts a request in until its response closes; call it for every request, before the app sees it. */
  track(req: http.IncomingMessage, res: http.ServerResponse): void {
    if (this.stoppingFlag) res.setHeader('Connection', 'close');
    const state = this.sockets.get(req.socket);
    if (!state) return;
    state.open.push(res);
    // 'close' fires after 'finish' and also when the client goes away mid-response: one place to count down.
    res.once('close', () => {
      const at = state.open.indexOf(res);
      if (at >= 0) state.open.splice(at, 1);
      state.idleSince = Date.now();
    });
  }

  /**
   * Marks the server as stopping: from now on every response, including those of requests already in flight
   * whose headers are not out yet, says `Connection: close`. The listener keeps accepting.
   */
  stop(): void {
    this.stoppingFlag = true;
    for (const state of this.sockets.values()) for (const res of state.open) if (!res.headersSent) res.setHeader('Connection', 'close');
  }

  /**
   * Stops accepting, then resolves once every socket has closed: busy ones after their response, idle ones
   * after the linger. Whatever is still open after `graceMs` is cut.
   */
  async drain(graceMs: number): Promise<void> {
    this.stop();
    const deadline = Date.now() + graceMs;
    // net.Server's close, not http.Server's: the latter also destroys idle keep-alive sockets at once, which
    // is exactly the race the linger avoids.
    const closed = this.server.listening
      ? new Promise<void>((resolve) => net.Server.prototype.close.call(this.server, () => resolve()))
      : Promise.resolve();
    await new Promise<void>((resolve) => {
      const sweep = (): void => {
        const now = Date.now();
        for (const [socket, state] of this.sockets) {
          if (now >= deadline || (state.open.length === 0 && now - state.idleSince >= IDLE_SOCKET_LINGER_MS)) socket.destroy();
        }
        if (this.sockets.size === 0) return resolve();
        setTimeout(sweep, SWEEP_INTERVAL_MS).unref();
      };
      sweep();
    });
    await closed;
  }
}
